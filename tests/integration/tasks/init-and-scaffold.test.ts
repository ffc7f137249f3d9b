import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { formatTaskTable } from '../../../src/cli/commands/tasks-command';
import { taskFixture, type TaskFixture } from './task-fixture';

let fx: TaskFixture;
beforeEach(async () => {
  fx = await taskFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

const nodes = [
  { id: 'a', title: 'A' },
  { id: 'b', title: 'B', depends_on: ['a'] },
];

describe('init_project_graph', () => {
  it('creates the graph (READY/PENDING), reachable by name or id, with a Mermaid chart', async () => {
    const view = await fx.init.execute({ projectName: 'My App', projectRoot: fx.projectRoot, nodes });
    expect(view.project_id).toBe('my-app');
    expect(view.project_root).toBe(fx.projectRoot);
    expect(view.nodes.map((n) => n.status)).toEqual(['READY', 'PENDING']);
    const byName = await fx.graph.execute({ project: 'My App' });
    const byId = await fx.graph.execute({ project: 'my-app' });
    expect(byName).toEqual(byId);
    expect(byId.mermaid).toContain('t0 --> t1');
    expect(await fs.stat(path.join(fx.dataDir, 'projects', 'my-app', 'task_graph.json'))).toBeTruthy();
    expect(formatTaskTable(byId).split('\n')).toEqual([
      `Project My App (my-app) — ${fx.projectRoot}`,
      'ID  STATUS   PRIORITY  ATTEMPTS  DEPENDS ON  CLAIMED BY  TITLE',
      'a   READY    medium    0/3       -           -           A',
      'b   PENDING  medium    0/3       a           -           B',
      '2 task(s): PENDING 1, READY 1; revision 0',
    ]);
    await fx.start.execute({ project: 'my-app', nodeId: 'a', agent: 'builder' });
    await fx.update.execute({ project: 'my-app', nodeId: 'b', priority: 'high', agent: 'builder' });
    const claimed = formatTaskTable(await fx.graph.execute({ project: 'my-app' })).split('\n');
    expect(claimed[2]).toMatch(new RegExp(`^a   IN_PROGRESS  medium    0/3       -           local/builder@${fx.host.host} until \\d\\d:\\d\\d:\\d\\dZ  A$`));
    expect(claimed[3]).toMatch(/^b   PENDING      high      0\/3       a           -  +B$/);
  });

  it('refuses an existing project unless replace, and replaces with replace: true', async () => {
    await fx.init.execute({ projectName: 'p', projectRoot: fx.projectRoot, nodes });
    await expect(fx.init.execute({ projectName: 'p', projectRoot: fx.projectRoot, nodes: [{ id: 'x', title: 'X' }] })).rejects.toThrow(
      /project 'p' already exists; pass replace: true/,
    );
    const v = await fx.init.execute({ projectName: 'p', projectRoot: fx.projectRoot, nodes: [{ id: 'x', title: 'X' }], replace: true });
    expect(v.nodes.map((n) => n.id)).toEqual(['x']);
    expect((await fx.graph.execute({ project: 'p' })).nodes.map((n) => n.id)).toEqual(['x']);
  });

  it('refuses cycles (naming them), unknown dependencies and duplicates without writing anything', async () => {
    await expect(
      fx.init.execute({ projectName: 'c', projectRoot: fx.projectRoot, nodes: [{ id: 'a', title: 'A', depends_on: ['b'] }, { id: 'b', title: 'B', depends_on: ['a'] }] }),
    ).rejects.toMatchObject({ code: 'cycle_detected', message: 'dependency cycle: a -> b -> a' });
    await expect(fx.init.execute({ projectName: 'c', projectRoot: fx.projectRoot, nodes: [{ id: 'a', title: 'A', depends_on: ['z'] }] })).rejects.toMatchObject({
      code: 'invalid_arguments',
    });
    await expect(fx.graph.execute({ project: 'c' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('refuses a projectRoot outside the allowed roots, or missing', async () => {
    await expect(fx.init.execute({ projectName: 'o', projectRoot: os.homedir() === '/' ? '/usr' : '/', nodes })).rejects.toMatchObject({
      code: 'path_not_allowed',
    });
    await expect(fx.init.execute({ projectName: 'o', projectRoot: path.join(fx.base, 'missing'), nodes })).rejects.toMatchObject({
      code: 'invalid_arguments',
    });
  });

  it('an unknown project is a not_found error telling to call init_project_graph', async () => {
    await expect(fx.ready.execute({ project: 'nope' })).rejects.toThrow(/call init_project_graph first/);
  });
});

describe('scaffold_project_docs', () => {
  const docs = (dir: string, extra: Record<string, unknown> = {}) => ({
    targetDirectory: dir,
    architectureContent: '# Architecture',
    phaseTasks: [
      { fileName: 'phase-1.md', content: 'one' },
      { fileName: 'phases/phase-2.md', content: 'two' },
    ],
    testCasesContent: '# Tests',
    ...extra,
  });

  it('writes ARCHITECTURE.md, each phase file and TEST_CASES.md, creating the folder', async () => {
    const dir = path.join(fx.projectRoot, 'docs');
    const r = await fx.scaffold.execute(docs(dir));
    expect(r.files_written).toEqual(['ARCHITECTURE.md', 'phase-1.md', 'phases/phase-2.md', 'TEST_CASES.md'].map((f) => path.join(dir, f)));
    expect(await fs.readFile(path.join(dir, 'phases/phase-2.md'), 'utf8')).toBe('two');
  });

  it.each([['../x.md'], ['/etc/x.md'], ['a/../../x.md'], ['x\0.md']])('refuses the file name %j and writes nothing', async (bad) => {
    const dir = path.join(fx.projectRoot, 'docs');
    await expect(fx.scaffold.execute(docs(dir, { phaseTasks: [{ fileName: bad, content: 'x' }] }))).rejects.toMatchObject({ code: 'unsafe_path' });
    await expect(fs.stat(path.join(dir, 'ARCHITECTURE.md'))).rejects.toThrow();
    await expect(fs.stat(path.join(fx.projectRoot, 'x.md'))).rejects.toThrow();
  });

  it('refuses a symlink leading out of the folder', async () => {
    const dir = path.join(fx.projectRoot, 'docs');
    const outside = path.join(fx.base, 'outside');
    await fs.mkdir(dir);
    await fs.mkdir(outside);
    await fs.symlink(outside, path.join(dir, 'link'));
    await expect(fx.scaffold.execute(docs(dir, { phaseTasks: [{ fileName: 'link/p.md', content: 'x' }] }))).rejects.toThrow(/symlink/);
    expect(await fs.readdir(outside)).toEqual([]);
  });

  it('refuses existing files unless overwrite, then overwrites', async () => {
    const dir = path.join(fx.projectRoot, 'docs');
    await fx.scaffold.execute(docs(dir));
    await expect(fx.scaffold.execute(docs(dir, { architectureContent: 'new' }))).rejects.toMatchObject({ code: 'already_exists' });
    expect(await fs.readFile(path.join(dir, 'ARCHITECTURE.md'), 'utf8')).toBe('# Architecture');
    await fx.scaffold.execute(docs(dir, { architectureContent: 'new', overwrite: true }));
    expect(await fs.readFile(path.join(dir, 'ARCHITECTURE.md'), 'utf8')).toBe('new');
  });

  it('refuses a targetDirectory outside the allowed roots', async () => {
    await expect(fx.scaffold.execute(docs('/etc/wg-docs'))).rejects.toMatchObject({ code: 'path_not_allowed' });
  });
});
