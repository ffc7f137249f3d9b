import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { InvalidWorkflowError, NotFoundError } from '../../../../src/kernel/errors';
import { FileWorkflowStorage } from '../../../../src/modules/workflow/infrastructure/file-workflow-storage';
import { InMemoryWorkflowStorage } from '../../../../src/modules/workflow/infrastructure/in-memory-workflow-storage';
import { MultiSourceWorkflowStorage } from '../../../../src/modules/workflow/infrastructure/multi-source-workflow-storage';
import { removeDirs, tempDir, workflow, writeJson } from './workflow-fixtures';

describe('MultiSourceWorkflowStorage', () => {
  const dirs: string[] = [];
  afterEach(() => removeDirs(dirs));

  async function folders(n: number): Promise<string[]> {
    const made = await Promise.all(Array.from({ length: n }, () => tempDir()));
    dirs.push(...made);
    return made;
  }

  it('lets a later source override an earlier one by id, reporting the winning source', async () => {
    const [bundled, project, flag] = await folders(3);
    await writeJson(bundled, 'review.json', workflow('review', { name: 'Bundled review' }));
    await writeJson(bundled, 'fix.json', workflow('fix', { name: 'Bundled fix' }));
    await writeJson(project, 'my-review.json', workflow('review', { name: 'Project review' }));
    await writeJson(flag, 'review.json', workflow('review', { name: 'Flag review' }));
    await writeJson(flag, 'extra.json', workflow('extra'));

    const storage = new MultiSourceWorkflowStorage([
      new FileWorkflowStorage(bundled, 'bundled'),
      new FileWorkflowStorage(project, 'project'),
      new FileWorkflowStorage(flag, 'flag'),
    ]);
    const listing = await storage.list();
    expect(listing.workflows.map((w) => [w.id, w.name, w.source])).toEqual([
      ['fix', 'Bundled fix', 'bundled'],
      ['review', 'Flag review', 'flag'],
      ['extra', 'Workflow extra', 'flag'],
    ]);
    expect((await storage.get('review')).name).toBe('Flag review');
    expect(storage.folders()).toEqual([bundled, project, flag]);
  });

  it('a broken override is reported as invalid instead of silently falling back to the earlier version', async () => {
    const [bundled, flag] = await folders(2);
    await writeJson(bundled, 'review.json', workflow('review'));
    await writeJson(bundled, 'other.json', workflow('other'));
    await fs.writeFile(path.join(flag, 'review.json'), '{"id": "review",');

    const storage = new MultiSourceWorkflowStorage([new FileWorkflowStorage(bundled, 'bundled'), new FileWorkflowStorage(flag, 'flag')]);
    const listing = await storage.list();
    expect(listing.workflows.map((w) => w.id)).toEqual(['other']);
    expect(listing.invalid).toEqual([expect.objectContaining({ id: 'review', source: 'flag', file: path.join(flag, 'review.json') })]);
    await expect(storage.get('review')).rejects.toBeInstanceOf(InvalidWorkflowError);
  });

  it('a later valid file repairs an earlier invalid one', async () => {
    const [bundled, flag] = await folders(2);
    await fs.writeFile(path.join(bundled, 'review.json'), 'not json');
    await writeJson(flag, 'review.json', workflow('review', { name: 'Fixed' }));
    const storage = new MultiSourceWorkflowStorage([new FileWorkflowStorage(bundled, 'bundled'), new FileWorkflowStorage(flag, 'flag')]);
    expect(await storage.list()).toEqual({
      workflows: [expect.objectContaining({ id: 'review', name: 'Fixed', source: 'flag' })],
      invalid: [],
    });
  });

  it('combines file and in-memory sources, and says not found for unknown ids', async () => {
    const [dir] = await folders(1);
    await writeJson(dir, 'a.json', workflow('a'));
    const memory = new InMemoryWorkflowStorage([workflow('b'), workflow('a', { name: 'Memory a' })], 'memory');
    const storage = new MultiSourceWorkflowStorage([new FileWorkflowStorage(dir, 'bundled'), memory]);
    expect((await storage.get('a')).name).toBe('Memory a');
    memory.remove('a');
    expect((await storage.get('a')).name).toBe('Workflow a');
    const err = await storage.get('zzz').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toMatch(/workflow 'zzz' not found/);
  });
});
