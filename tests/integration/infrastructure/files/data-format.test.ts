import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataFormat, DATA_FORMAT_VERSION, type MigrationStep } from '../../../../src/kernel/files/data-format';
import { dataMigrations } from '../../../../src/server/data-migrations';
import { makeKnowledgeEnv } from '../../knowledge/support/knowledge-env';

describe('data dir format version (format.json, migrations, newer data refused)', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'wg-format-'));
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  const readFormat = async () => JSON.parse(await fs.readFile(path.join(dir, 'format.json'), 'utf8'));

  it('a fresh data dir gets the current format on its first write; reads write nothing', async () => {
    const format = new DataFormat(dir, dataMigrations(), 'workgraph test');
    await format.assertReadable();
    await expect(fs.access(path.join(dir, 'format.json'))).rejects.toThrow();
    await format.assertWritable();
    expect(await readFormat()).toMatchObject({ format: DATA_FORMAT_VERSION, writtenBy: 'workgraph test' });
  });

  it('migrates a copy of the format-1 layout on the first write (knowledge owners recorded), then serves it', async () => {
    // Today's layout: projects/<slug>/knowledge_graph.ndjson, no format.json, no owner file.
    const project = path.join(dir, 'projects', 'app');
    await fs.mkdir(project, { recursive: true });
    const node = { id: 'n1', project: 'app', projectContext: '/home/me/work/app/', thought: 'old', role: 'actor', tags: [], artifacts: [], parents: [], createdAt: '2025-01-01T00:00:00.000Z' };
    await fs.writeFile(path.join(project, 'knowledge_graph.ndjson'), JSON.stringify(node) + '\n');
    const before = await fs.readFile(path.join(project, 'knowledge_graph.ndjson'));
    const migrated: string[] = [];
    const format = new DataFormat(dir, dataMigrations(), 'workgraph test', undefined, (s) => migrated.push(s.description));
    const env = await makeKnowledgeEnv({ format }, dir);
    // Reading does not migrate.
    expect((await env.get.execute({ projectContext: '/home/me/work/app', id: 'n1' })).node.thought).toBe('old');
    await expect(fs.access(path.join(dir, 'format.json'))).rejects.toThrow();
    // The first write migrates.
    await env.add.execute({ projectContext: '/home/me/other/app', nodes: [{ id: 'o1', thought: 'other', role: 'actor' }] });
    expect(migrated).toEqual([expect.stringMatching(/owns each project/), expect.stringMatching(/^tasks: attempt records bounded/)]);
    expect(await readFormat()).toMatchObject({ format: 2 });
    expect(JSON.parse(await fs.readFile(path.join(project, 'knowledge_graph.owner.json'), 'utf8')).pathKey).toBe('/home/me/work/app');
    expect(await fs.readFile(path.join(project, 'knowledge_graph.ndjson'))).toEqual(before); // the other folder went elsewhere
    expect((await env.get.execute({ projectContext: '/home/me/work/app', id: 'n1' })).node.thought).toBe('old');
  });

  it('refuses a data dir written by a newer version, for reads and writes, naming it', async () => {
    await fs.writeFile(path.join(dir, 'format.json'), JSON.stringify({ format: DATA_FORMAT_VERSION + 1, writtenBy: 'workgraph 9.0.0' }));
    const format = new DataFormat(dir, dataMigrations());
    for (const check of [() => format.assertReadable(), () => format.assertWritable()]) {
      const err = await check().catch((e) => e);
      expect(err.code).toBe('storage_error');
      expect(err.message).toContain(dir);
      expect(err.message).toMatch(/newer workgraph .*format 3, by workgraph 9\.0\.0.*reads formats up to 2/);
    }
    const env = await makeKnowledgeEnv({ format }, dir);
    await expect(env.list.execute({ projectContext: 'p' })).rejects.toMatchObject({ code: 'storage_error' });
  });

  it('a damaged format.json is a storage_error saying how to recover', async () => {
    await fs.writeFile(path.join(dir, 'format.json'), '{"format":');
    const err = await new DataFormat(dir, []).assertReadable().catch((e) => e);
    expect(err.code).toBe('storage_error');
    expect(err.message).toMatch(/format\.json is damaged/);
  });

  it('runs the steps of each format in order and resumes an interrupted migration at the step that failed', async () => {
    await fs.mkdir(path.join(dir, 'projects', 'x'), { recursive: true });
    const ran: string[] = [];
    let failOnce = true;
    const steps: MigrationStep[] = [
      { to: 2, description: 'a', run: async () => void ran.push('a') },
      {
        to: 2,
        description: 'b',
        run: async () => {
          ran.push('b');
          if (failOnce) {
            failOnce = false;
            throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
          }
        },
      },
      { to: 3, description: 'c', run: async () => void ran.push('c') },
    ];
    const format = new DataFormat(dir, steps, 'test', 3);
    const err = await format.assertWritable().catch((e) => e);
    expect(err.code).toBe('storage_error');
    expect(err.message).toMatch(/migrate \(b\).*no space left/);
    expect(await readFormat()).toMatchObject({ format: 1, stepsDone: ['a'] });
    await format.assertWritable();
    expect(ran).toEqual(['a', 'b', 'b', 'c']);
    expect(await readFormat()).toEqual({ format: 3, writtenBy: 'test' });
  });
});
