import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CLI, connectClient, tempDir } from './helpers/server-process';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';

/**
 * The built server with `--database-url`: knowledge graphs live in a real PostgreSQL server shared by two server
 * processes (soft delete with dependents confirmation, backups named in `backupPath`, restore as newest); the
 * `workgraph knowledge backups|restore-backup` commands on the database; `db import`/`db export` copy knowledge
 * exactly and idempotently.
 */
const run = promisify(execFile);
type Conn = Awaited<ReturnType<typeof connectClient>>;
type Structured = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const text = (r: CallToolResult) => (r.content as Array<{ text: string }>)[0].text;

describe('PostgreSQL knowledge store (built server)', () => {
  let pg: TestPostgres;
  let tmp: ReturnType<typeof tempDir>;
  const conns: Conn[] = [];
  const connect = async (dataDir: string, url?: string) => {
    const c = await connectClient({ dataDir, args: url ? ['--database-url', url] : [] });
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
    tmp = tempDir('wg-e2e-pgk-');
  }, 120_000);
  afterAll(async () => {
    await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
    tmp?.cleanup();
    await pg?.stop();
  });

  it('two servers share one knowledge graph: paging, dependents, backups, restore; nothing lands in the data dir', async () => {
    const url = await pg.createTestDatabase();
    const dataDir = path.join(tmp.dir, 'shared-data');
    const a = await connect(dataDir, url);
    const b = await connect(dataDir, url);
    await ok(a, 'add_nodes', { projectContext: 'demo', nodes: [{ id: 'root', thought: 'Root idea', role: 'actor', tags: ['plan'] }, { id: 'mid', thought: 'Middle', role: 'critic', parents: ['root'] }] });
    await ok(b, 'add_nodes', { projectContext: 'demo', nodes: [{ id: 'leaf', thought: 'Leaf', role: 'actor', parents: ['mid'] }] });
    const page = await ok(b, 'list_nodes', { projectContext: 'demo', limit: 2 });
    expect(page.nodes.map((n: Structured) => n.id)).toEqual(['leaf', 'mid']);
    const rest = await ok(a, 'list_nodes', { projectContext: 'demo', limit: 2, cursor: page.nextCursor });
    expect(rest.nodes.map((n: Structured) => n.id)).toEqual(['root']);
    expect(rest.nextCursor).toBeNull();
    expect((await ok(a, 'get_node', { projectContext: 'demo', id: 'root' })).node.children).toEqual(['mid']);

    const refused = await ok(a, 'delete_nodes', { projectContext: 'demo', nodeIds: ['mid'] });
    expect(refused.success).toBe(false);
    expect(refused.dependentNodes.map((n: Structured) => n.nodeId)).toEqual(['leaf']);
    const del = await ok(b, 'delete_nodes', { projectContext: 'demo', nodeIds: ['mid', 'leaf'], reason: 'e2e' });
    expect(del.success).toBe(true);
    expect(del.backupPath).toMatch(/^postgresql:wg_knowledge_backups\/demo\/\d+$/);
    expect((await ok(a, 'list_nodes', { projectContext: 'demo' })).nodes.map((n: Structured) => n.id)).toEqual(['root']);

    const listed = JSON.parse((await run(process.execPath, [CLI, 'knowledge', 'backups', 'demo', '--database-url', url, '--json'])).stdout);
    expect(listed.backups).toHaveLength(1);
    expect(listed.backups[0]).toMatchObject({ path: del.backupPath, nodes: 2 });
    const restored = JSON.parse((await run(process.execPath, [CLI, 'knowledge', 'restore-backup', del.backupPath, '--database-url', url, '--json'])).stdout);
    expect(restored.restoredNodeIds).toEqual(['mid', 'leaf']);
    // Restored nodes count as newest.
    expect((await ok(b, 'list_nodes', { projectContext: 'demo' })).nodes.map((n: Structured) => n.id)).toEqual(['leaf', 'mid', 'root']);
    expect(fs.existsSync(path.join(dataDir, 'projects'))).toBe(false);

    await ok(a, 'delete_nodes', { projectContext: 'demo', nodeIds: ['leaf'] });
    expect((await ok(b, 'restore_nodes', { projectContext: 'demo', nodeIds: ['leaf'] })).restoredNodeIds).toEqual(['leaf']);
    const bad = await run(process.execPath, [CLI, 'knowledge', 'restore-backup', 'demo/999999', '--database-url', url]).catch((e) => e);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("knowledge backup 'demo/999999' not found");
  }, 120_000);

  it('db import copies knowledge exactly and idempotently; db export writes the same files back', async () => {
    const source = path.join(tmp.dir, 'source-data');
    const files = await connect(source);
    await ok(files, 'add_nodes', {
      projectContext: 'moved',
      nodes: [
        { id: 'k1', thought: 'First “thought”\nwith lines', role: 'actor', tags: ['a', 'b'], artifacts: [{ name: 'doc', path: 'docs/x.md' }] },
        { id: 'k2', thought: 'Critique', role: 'critic', parents: ['k1'], verdict: 'approved', target: 'k1' },
        { id: 'k3', thought: 'Gone soon', role: 'actor', parents: ['k1'] },
        { id: 's1', thought: 'Summary', role: 'summary', parents: ['k1'], summarizedSegment: ['k1', 'k2'] },
      ],
    });
    await ok(files, 'delete_nodes', { projectContext: 'moved', nodeIds: ['k3'], reason: 'moved test' });
    const url = await pg.createTestDatabase();
    const imported = (await run(process.execPath, [CLI, 'db', 'import', '--data-dir', source, '--database-url', url])).stdout;
    expect(imported).toMatch(/knowledge moved: copied 3 node\(s\), 1 deleted record\(s\)/);
    expect(imported).toMatch(/1 knowledge project\(s\) imported into the database \(3 node\(s\), 1 deleted record\(s\)\), 0 unchanged/);
    const again = (await run(process.execPath, [CLI, 'db', 'import', '--data-dir', source, '--database-url', url])).stdout;
    expect(again).toMatch(/0 knowledge project\(s\) imported into the database \(0 node\(s\), 0 deleted record\(s\)\), 1 unchanged/);

    // The database serves what was imported, newest first, timestamps as they were.
    const db = await connect(path.join(tmp.dir, 'unused'), url);
    const listed = await ok(db, 'list_nodes', { projectContext: 'moved' });
    const original = await ok(files, 'list_nodes', { projectContext: 'moved' });
    expect(listed.nodes).toEqual(original.nodes);

    const target = path.join(tmp.dir, 'exported-data');
    const exported = (await run(process.execPath, [CLI, 'db', 'export', '--data-dir', target, '--database-url', url])).stdout;
    expect(exported).toMatch(/1 knowledge project\(s\) exported to /);
    for (const file of ['knowledge_graph.ndjson', 'knowledge_graph.deleted.ndjson']) {
      expect(fs.readFileSync(path.join(target, 'projects', 'moved', file), 'utf8')).toBe(fs.readFileSync(path.join(source, 'projects', 'moved', file), 'utf8'));
    }
  }, 120_000);
});
