import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI, connectClient, serverEnv, tempDir } from './helpers/server-process';

type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Who made each task transition, end to end: the built server records the caller's identity and its MCP client's
 * `clientInfo.name` on every status change; get_task_details shows them, and `workgraph tasks PROJECT --task ID`
 * prints them from the same data dir.
 */
describe('task transitions keep their actor', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeAll(() => {
    tmp = tempDir('wg-actors-');
  });
  afterAll(() => tmp.cleanup());

  it('get_task_details and the CLI show who started, validated and completed a task', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const root = path.join(tmp.dir, 'root');
    fs.mkdirSync(root);
    const conn = await connectClient({ dataDir, args: ['--allow-root', root] });
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await conn.client.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: Structured; content: { text: string }[] };
      if (r.isError) throw new Error(r.content[0].text);
      return r.structuredContent!;
    };
    try {
      await call('init_project_graph', { projectName: 'actors', projectRoot: root, nodes: [{ id: 'a', title: 'Build it', validation_command: 'true' }, { id: 'b', title: 'Ship', depends_on: ['a'] }] });
      await call('start_task', { project: 'actors', nodeId: 'a', agent: 'builder' });
      await call('validate_task_loop', { project: 'actors', nodeId: 'a', agent: 'builder' });
      const details = await call('get_task_details', { project: 'actors', nodeId: 'b' });
      const me = { name: 'local', client: 'workgraph-e2e' };
      expect(details.transitions.map((t: Structured) => [t.from, t.to, t.actor])).toEqual([
        ['PENDING', 'PENDING', me],
        ['PENDING', 'READY', me],
      ]);
      const a = await call('get_task_details', { project: 'actors', nodeId: 'a' });
      expect(a.transitions.map((t: Structured) => t.to)).toEqual(['READY', 'IN_PROGRESS', 'VALIDATING', 'COMPLETED']);
      expect(a.transitions.every((t: Structured) => t.actor.name === 'local' && t.actor.client === 'workgraph-e2e')).toBe(true);
      expect(a.history.at(-1).actor).toMatchObject({ identity: 'local', agent: 'builder', client: 'workgraph-e2e' });
    } finally {
      await conn.close();
    }

    const cli = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: serverEnv({ dataDir }) });
    const out = cli(['tasks', 'actors', '--task', 'a']);
    expect(out.stderr).toBe('');
    expect(out.status).toBe(0);
    expect(out.stdout).toMatch(/^Task a \(actors\) — COMPLETED: Build it$/m);
    expect(out.stdout).toMatch(/READY -> IN_PROGRESS +attempt 1 +local \(workgraph-e2e\)$/m);
    expect(out.stdout).toMatch(/VALIDATING -> COMPLETED +attempt 1 +local \(workgraph-e2e\)$/m);
    expect(out.stdout).toMatch(/validate_task_loop +local\/builder@\S+ \(workgraph-e2e\) +'a' passed validation/);
    const json = JSON.parse(cli(['tasks', 'actors', '--task', 'b', '--json']).stdout);
    expect(json.transitions[1]).toMatchObject({ from: 'PENDING', to: 'READY', actor: { name: 'local', client: 'workgraph-e2e' } });
    const missing = cli(['tasks', 'actors', '--task', 'nope']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain("task 'nope' not found");
    const both = cli(['tasks', 'actors', '--task', 'a', '--mermaid']);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain('--mermaid and --task');
  });
});
