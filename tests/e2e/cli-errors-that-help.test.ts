import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertBuilt, CLI, connectClient, tempDir } from './helpers/server-process';

const ROOT = path.resolve(__dirname, '../..');

function run(args: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) {
  assertBuilt();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('WORKGRAPH_')) env[k] = v;
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', cwd: opts.cwd, env: { ...env, ...opts.env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The CLI's answers when a user gets something wrong, and the projects listing (built CLI). */
describe('CLI errors that help', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(() => {
    tmp = tempDir('wg-cli-help-');
  });
  afterAll(() => tmp.cleanup());

  it('list --workflows /nope says the folder does not exist; list --graphs lists the graph tools and the files that do not load', () => {
    const missing = path.join(tmp.dir, 'nope');
    const broken = path.join(tmp.dir, 'broken.yaml');
    fs.writeFileSync(broken, 'server: { name: "b", version: "1" }\ntools: [{ name: "x" }]\n');
    const r = run(['list', '--workflows', missing, '--graphs', path.join(ROOT, 'examples/graphs/sum_to_n.yaml'), '--graphs', broken, '--data-dir', tmp.dir]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`workflow folder ${missing} (flag) does not exist or is not a folder`);
    expect(r.stdout).toMatch(/Graph tools:\n {2}sum_to_n +\S*sum_to_n\.yaml {2}Sums numbers from 1 to n using a loop/);
    expect(r.stdout).toMatch(new RegExp(`Graph files not loaded:\n  ${broken.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:2:\\d+: tool 'x'`));
    expect(r.stdout).not.toContain(`${broken}: ${broken}`); // the file named once
    const json = JSON.parse(run(['list', '--json', '--graphs', path.join(ROOT, 'examples/graphs/sum_to_n.yaml'), '--data-dir', tmp.dir]).stdout);
    expect(json.graphTools).toEqual([expect.objectContaining({ name: 'sum_to_n', file: path.join(ROOT, 'examples/graphs/sum_to_n.yaml') })]);
  });

  it('tasks PROJECT with nothing found names the data dir it searched', () => {
    const data = path.join(tmp.dir, 'empty-data');
    const r = run(['tasks', 'my-app', '--data-dir', data]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`searched ${path.join(data, 'projects')}`);
    expect(r.stderr).toContain('workgraph projects');
  });

  it('projects lists the projects of a data dir with their tasks and knowledge counts', async () => {
    const data = path.join(tmp.dir, 'data');
    const empty = run(['projects', '--data-dir', data]);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain(`No projects in ${path.join(data, 'projects')}`);

    const projectRoot = path.join(tmp.dir, 'app');
    fs.mkdirSync(projectRoot);
    const conn = await connectClient({ dataDir: data, args: ['--allow-root', tmp.dir] });
    try {
      const init = await conn.client.callTool({
        name: 'init_project_graph',
        arguments: { projectName: 'My App', projectRoot, nodes: [{ id: 'a', title: 'A', depends_on: [] }, { id: 'b', title: 'B', depends_on: ['a'] }] },
      });
      expect(init.isError).toBeFalsy();
      const added = await conn.client.callTool({
        name: 'add_nodes',
        arguments: { projectContext: '/x/notes', nodes: [{ thought: 'one', role: 'actor', tags: [], artifacts: [], parents: [] }, { thought: 'two', role: 'actor', tags: [], artifacts: [], parents: [] }] },
      });
      expect(added.isError).toBeFalsy();
    } finally {
      await conn.close();
    }
    const r = run(['projects', '--data-dir', data]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Projects in ${path.join(data, 'projects')}:`);
    expect(r.stdout).toMatch(/ {2}my-app "My App": 2 task\(s\) \(READY 1, PENDING 1\); no knowledge graph/);
    expect(r.stdout).toMatch(/ {2}notes: no task graph; 2 knowledge node\(s\)/);
    const json = JSON.parse(run(['projects', '--json', '--data-dir', data]).stdout);
    expect(json.projects).toEqual([
      expect.objectContaining({ id: 'my-app', name: 'My App', tasks: { total: 2, byStatus: { READY: 1, PENDING: 1 } } }),
      expect.objectContaining({ id: 'notes', knowledge: { nodes: 2, deleted: 0, malformedLines: 0, backups: 0 } }),
    ]);
  }, 60_000);
});
