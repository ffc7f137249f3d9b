import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Logger } from '../../../../src/kernel/logger';
import { InvalidWorkflowError, NotFoundError, UnsafePathError } from '../../../../src/kernel/errors';
import { FileWorkflowStorage } from '../../../../src/modules/workflow/infrastructure/file-workflow-storage';
import { removeDirs, tempDir, workflow, writeJson } from './workflow-fixtures';

function recordingLogger(lines: string[]): Logger {
  const log = (msg: string) => void lines.push(msg);
  const logger: Logger = { debug: () => undefined, info: log, warn: log, error: log, child: () => logger };
  return logger;
}

describe('FileWorkflowStorage', () => {
  const dirs: string[] = [];
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
    dirs.push(dir);
  });
  afterEach(() => removeDirs(dirs));

  it('loads every *.json file of the folder and its subfolders (not dot-folders, not node_modules), and only those', async () => {
    await writeJson(dir, 'alpha.json', workflow('alpha'));
    await writeJson(dir, 'beta.json', workflow('beta'));
    await fs.writeFile(path.join(dir, 'notes.txt'), 'not a workflow');
    await fs.mkdir(path.join(dir, 'nested', 'deeper'), { recursive: true });
    await writeJson(path.join(dir, 'nested'), 'gamma.json', workflow('gamma'));
    await writeJson(path.join(dir, 'nested', 'deeper'), 'delta.json', workflow('delta'));
    for (const skipped of ['.git', 'node_modules', path.join('nested', '.cache')]) {
      await fs.mkdir(path.join(dir, skipped), { recursive: true });
      await writeJson(path.join(dir, skipped), 'hidden.json', workflow('hidden'));
    }

    const storage = new FileWorkflowStorage(dir, 'flag');
    const listing = await storage.list();

    expect(listing.workflows).toEqual([
      { id: 'alpha', name: 'Workflow alpha', description: 'Does alpha', version: '1.0.0', source: 'flag' },
      { id: 'beta', name: 'Workflow beta', description: 'Does beta', version: '1.0.0', source: 'flag' },
      { id: 'delta', name: 'Workflow delta', description: 'Does delta', version: '1.0.0', source: 'flag' },
      { id: 'gamma', name: 'Workflow gamma', description: 'Does gamma', version: '1.0.0', source: 'flag' },
    ]);
    expect(listing.invalid).toEqual([]);
    expect((await storage.get('beta')).steps[0].id).toBe('first');
  });

  it('keys workflows by their declared id, not the file name', async () => {
    await writeJson(dir, 'some-file.json', workflow('declared-id'));
    const storage = new FileWorkflowStorage(dir, 'bundled');
    expect((await storage.get('declared-id')).id).toBe('declared-id');
    await expect(storage.get('some-file')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('reports unreadable and non-JSON files with file and reason without hiding the others, and logs each once', async () => {
    await writeJson(dir, 'good.json', workflow('good'));
    await fs.writeFile(path.join(dir, 'broken.json'), '{\n  "id": "broken",\n  "name": "x",\n}');
    await fs.writeFile(path.join(dir, 'list.json'), '[1, 2]');
    await writeJson(dir, 'no-id.json', { name: 'nameless' });
    const lines: string[] = [];
    const storage = new FileWorkflowStorage(dir, 'project', recordingLogger(lines));

    const listing = await storage.list();
    expect(listing.workflows.map((w) => w.id)).toEqual(['good']);
    const byId = Object.fromEntries(listing.invalid.map((e) => [e.id, e]));
    expect(Object.keys(byId).sort()).toEqual(['broken', 'list', 'no-id']);
    expect(byId.broken).toMatchObject({ file: path.join(dir, 'broken.json'), source: 'project' });
    expect(byId.broken.reason).toMatch(/invalid JSON at line 4, column 1/);
    expect(byId.list.reason).toMatch(/top level must be a JSON object/);
    expect(byId['no-id'].reason).toMatch(/missing 'id'/);

    expect(lines).toHaveLength(3);
    expect(lines.find((l) => l.includes('broken.json'))).toMatch(/invalid JSON/);
    await storage.list();
    expect(lines).toHaveLength(3); // not repeated on every load
  });

  it('get of an invalid file says it is invalid and why, not "not found"', async () => {
    await fs.writeFile(path.join(dir, 'broken.json'), '{ "id": "broken", // comment\n }');
    const storage = new FileWorkflowStorage(dir, 'flag');
    const err = await storage.get('broken').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidWorkflowError);
    expect((err as InvalidWorkflowError).message).toMatch(/broken\.json.*comments are not allowed/);
  });

  it('reports a second file declaring an id already taken in the folder', async () => {
    await writeJson(dir, 'a.json', workflow('same', { name: 'First' }));
    await writeJson(dir, 'b.json', workflow('same', { name: 'Second' }));
    const storage = new FileWorkflowStorage(dir, 'flag');
    const listing = await storage.list();
    expect(listing.workflows.map((w) => w.name)).toEqual(['First']);
    expect(listing.invalid).toEqual([
      expect.objectContaining({ id: 'same', file: path.join(dir, 'b.json'), reason: expect.stringMatching(/duplicate id 'same'.*a\.json/) }),
    ]);
    expect((await storage.get('same')).name).toBe('First');
  });

  it.each([
    ['..', /'\.' or '\.\.'/],
    ['../outside', /path separator/],
    ['/etc/passwd', /absolute path/],
    ['C:\\\\evil', /absolute path/],
    ['bad\0id', /NUL byte/],
    ['', /empty/],
  ])('refuses the id %j', async (id, reason) => {
    await writeJson(dir, 'alpha.json', workflow('alpha'));
    const storage = new FileWorkflowStorage(dir, 'flag');
    const err = await storage.get(id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsafePathError);
    expect((err as Error).message).toMatch(reason);
  });

  it('refuses a symlink resolving outside the folder, and accepts one inside', async () => {
    const outside = await tempDir('wg-outside-');
    dirs.push(outside);
    await writeJson(outside, 'secret.json', workflow('secret'));
    await fs.symlink(path.join(outside, 'secret.json'), path.join(dir, 'escape.json'));
    // the link's target sits in a dot-folder (not read itself), so the link is the only record of 'inside'
    await fs.mkdir(path.join(dir, '.real'));
    await writeJson(path.join(dir, '.real'), 'inside.json', workflow('inside'));
    await fs.symlink(path.join(dir, '.real', 'inside.json'), path.join(dir, 'linked.json'));
    await fs.symlink(path.join(dir, 'missing.json'), path.join(dir, 'dangling.json'));

    const storage = new FileWorkflowStorage(dir, 'flag');
    const listing = await storage.list();
    expect(listing.workflows.map((w) => w.id)).toEqual(['inside']);
    expect(listing.invalid.map((e) => [e.id, e.reason])).toEqual([
      ['dangling', 'broken symlink'],
      ['escape', expect.stringMatching(/symlink resolves outside the workflow folder/)],
    ]);
    await expect(storage.get('secret')).rejects.toBeInstanceOf(NotFoundError);
    await expect(storage.get('escape')).rejects.toBeInstanceOf(InvalidWorkflowError);
  });

  it('reads a source folder that is itself a symlink', async () => {
    await writeJson(dir, 'alpha.json', workflow('alpha'));
    const holder = await tempDir('wg-link-');
    dirs.push(holder);
    const link = path.join(holder, 'workflows');
    await fs.symlink(dir, link);
    expect((await new FileWorkflowStorage(link, 'flag').list()).workflows.map((w) => w.id)).toEqual(['alpha']);
  });

  it('treats a missing folder as empty and warns once', async () => {
    const lines: string[] = [];
    const storage = new FileWorkflowStorage(path.join(dir, 'nope'), 'env', recordingLogger(lines));
    expect(await storage.list()).toEqual({ workflows: [], invalid: [] });
    await storage.list();
    expect(lines).toEqual([expect.stringMatching(/nope.*does not exist/)]);
  });
});
