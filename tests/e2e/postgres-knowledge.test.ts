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

  /** Runs the CLI; `--json` output parsed. */
  const cli = async (args: string[], env?: Record<string, string>) => (await run(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } })).stdout;
  const cliJson = async (args: string[]) => JSON.parse(await cli([...args, '--json']));
  const ids = async (c: Conn, projectContext: string) => (await ok(c, 'list_nodes', { projectContext })).nodes.map((n: Structured) => n.id);

  it('db import/export copy knowledge backups: listed with the same names and times, restored the same in files and database', async () => {
    const source = path.join(tmp.dir, 'backup-source');
    const files = await connect(source);
    await ok(files, 'add_nodes', {
      projectContext: 'kept',
      nodes: ['a', 'b', 'c', 'd', 'e'].map((id, i) => ({ id, thought: `thought ${id}`, role: 'actor', parents: i === 1 ? ['a'] : [] })),
    });
    // Three real deletes, each taking a whole-graph backup file: B1 (abcde) before c, B2 (abde) before d, and, after c
    // is restored, B3 (abec) before e. Live: a b c. Restoring B1 or B2 brings back d and e, B3 brings back e.
    await ok(files, 'delete_nodes', { projectContext: 'kept', nodeIds: ['c'] });
    await ok(files, 'delete_nodes', { projectContext: 'kept', nodeIds: ['d'] });
    await ok(files, 'restore_nodes', { projectContext: 'kept', nodeIds: ['c'] });
    await ok(files, 'delete_nodes', { projectContext: 'kept', nodeIds: ['e'] });
    const fromFiles = (await cliJson(['knowledge', 'backups', 'kept', '--data-dir', source])).backups;
    expect(fromFiles).toHaveLength(3);

    const url = await pg.createTestDatabase();
    const imported = await cli(['db', 'import', '--data-dir', source, '--database-url', url]);
    expect(imported).toContain(`knowledge backup ${fromFiles[2].id}: copied, 2 node(s) to bring back`);
    expect(imported).toMatch(/3 knowledge backup\(s\) imported into the database, 0 unchanged, 0 kept as they were/);
    expect(await cli(['db', 'import', '--data-dir', source, '--database-url', url])).toMatch(/0 knowledge backup\(s\) imported into the database, 3 unchanged/);

    // Listed newest first with the file's time to the millisecond and its name; the node count is what it brings back.
    const inDb = (await cliJson(['knowledge', 'backups', 'kept', '--database-url', url])).backups;
    expect(inDb.map((b: Structured) => b.modifiedAt)).toEqual(fromFiles.map((b: Structured) => b.modifiedAt));
    expect(inDb.map((b: Structured) => b.file.split(' ')[0])).toEqual(fromFiles.map((b: Structured) => b.file));
    expect(inDb.map((b: Structured) => b.nodes)).toEqual([1, 2, 2]);

    const target = path.join(tmp.dir, 'backup-export');
    expect(await cli(['db', 'export', '--data-dir', target, '--database-url', url])).toMatch(/3 knowledge backup\(s\) exported to .*, 0 unchanged/);
    expect(await cli(['db', 'export', '--data-dir', target, '--database-url', url])).toMatch(/0 knowledge backup\(s\) exported to .*, 3 unchanged/);
    // Back into the data dir it came from: its whole-graph files hold every node the database's copies do.
    expect(await cli(['db', 'export', '--data-dir', source, '--database-url', url])).toMatch(/0 knowledge backup\(s\) exported to .*, 3 unchanged, 0 kept/);
    const exported = (await cliJson(['knowledge', 'backups', 'kept', '--data-dir', target])).backups;
    expect(exported.map((b: Structured) => [b.file, b.modifiedAt])).toEqual(fromFiles.map((b: Structured) => [b.file, b.modifiedAt]));

    // Restore the oldest backup in a copy of the source, in the database (by the file's id) and in the exported files.
    const scratch = path.join(tmp.dir, 'backup-scratch');
    fs.cpSync(source, scratch, { recursive: true });
    const oldest = fromFiles[2].id;
    const restored = [
      await cliJson(['knowledge', 'restore-backup', oldest, '--data-dir', scratch]),
      await cliJson(['knowledge', 'restore-backup', oldest, '--database-url', url]),
      await cliJson(['knowledge', 'restore-backup', oldest, '--data-dir', target]),
    ];
    for (const r of restored) expect(r).toMatchObject({ project: 'kept', restoredNodeIds: ['d', 'e'] });
    // The whole-graph file also held a, b and c (there already); the copies hold only what was missing.
    expect(restored.map((r) => r.alreadyPresent)).toEqual([3, 0, 0]);
    const lists = [];
    for (const c of [await connect(scratch), await connect(path.join(tmp.dir, 'unused-b'), url), await connect(target)]) lists.push((await ok(c, 'list_nodes', { projectContext: 'kept' })).nodes);
    expect(lists[0].map((n: Structured) => n.id)).toEqual(['e', 'd', 'c', 'b', 'a']);
    expect(lists[1]).toEqual(lists[0]);
    expect(lists[2]).toEqual(lists[0]);
    // The newest backup, by the database id it got, now has nothing to bring back: e is there again.
    const again = await cliJson(['knowledge', 'restore-backup', inDb[0].id, '--database-url', url]);
    expect(again).toMatchObject({ backupNodes: 1, restoredNodeIds: [], alreadyPresent: 1 });
    expect(await ids(files, 'kept')).toEqual(['c', 'b', 'a']);
  }, 240_000);

  it('a damaged backup file stops its project with one line naming the file; projects lists what the database holds', async () => {
    const data = path.join(tmp.dir, 'damaged-data');
    const projectRoot = path.join(tmp.dir, 'app');
    fs.mkdirSync(projectRoot);
    const files = await connectClient({ dataDir: data, args: ['--allow-root', tmp.dir] });
    conns.push(files);
    await ok(files, 'init_project_graph', { projectName: 'App', projectRoot, nodes: [{ id: 't1', title: 'T1', depends_on: [] }] });
    for (const project of ['good', 'bad']) {
      await ok(files, 'add_nodes', { projectContext: project, nodes: [{ id: `${project}-1`, thought: 'keep', role: 'actor' }, { id: `${project}-2`, thought: 'drop', role: 'actor' }] });
      await ok(files, 'delete_nodes', { projectContext: project, nodeIds: [`${project}-2`] });
    }
    const [badBackup] = (await cliJson(['knowledge', 'backups', 'bad', '--data-dir', data])).backups;
    fs.appendFileSync(badBackup.path, '{"half": "a node"\n');
    const stray = path.join(data, 'projects', 'good', 'backup', 'notes.txt');
    fs.writeFileSync(stray, 'mine\n');

    const url = await pg.createTestDatabase();
    const failed = await run(process.execPath, [CLI, 'db', 'import', '--data-dir', data, '--database-url', url]).catch((e) => e);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain(`knowledge bad: not copied (nor its backups): ${badBackup.path} line 3: not a knowledge node`);
    expect(failed.stdout).toContain('knowledge good: copied 1 node(s), 1 deleted record(s)');
    expect(failed.stdout).toContain(`knowledge good: ${stray} is not a backup`);
    expect(failed.stdout).toMatch(/1 knowledge backup\(s\) imported into the database/);
    expect(failed.stdout).toMatch(/1 task project\(s\) imported into the database/);

    // Nothing of `bad` is in the database; `projects` lists the database's projects, not the data dir's folders.
    const listed = await cliJson(['projects', '--database-url', url]);
    expect(listed.database).not.toContain('wg-test-secret');
    expect(listed.projects).toEqual([
      expect.objectContaining({ id: 'app', name: 'App', tasks: { total: 1, byStatus: { READY: 1 } } }),
      { id: 'good', knowledge: { nodes: 1, deleted: 1, malformedLines: 0, backups: 1 } },
    ]);
    expect(listed.projects[0].knowledge).toBeUndefined();
    const table = await cli(['projects', '--data-dir', path.join(tmp.dir, 'no-such-data')], { WORKGRAPH_DATABASE_URL: url });
    expect(table).toMatch(/^Projects in database postgres:\/\/[^\n]*:\n {2}app "App": 1 task\(s\) \(READY 1\); no knowledge graph/);
    expect(table).toContain('  good: no task graph; 1 knowledge node(s), 1 deleted, 1 backup(s)');
    expect(table).not.toContain('wg-test-secret');
    const empty = await cli(['projects', '--database-url', await pg.createTestDatabase()]);
    expect(empty).toMatch(/^No projects in database postgres:\/\/.* \(set it with --database-url or WORKGRAPH_DATABASE_URL\)/);

    // Once the backup is fixed (the damaged line removed), importing again copies the project and its backup.
    fs.writeFileSync(badBackup.path, fs.readFileSync(badBackup.path, 'utf8').replace('{"half": "a node"\n', ''));
    const fixed = await cli(['db', 'import', '--data-dir', data, '--database-url', url]);
    expect(fixed).toContain('knowledge bad: copied 1 node(s), 1 deleted record(s)');
    expect(fixed).toMatch(/1 knowledge backup\(s\) imported into the database, 1 unchanged/);
  }, 240_000);
  it('search past 10,000 matches: PostgreSQL counts words (term bitmaps, newest first) and a filtered search up to "at least 10,000" (the CLI prints 10,000+), a scored phrase exactly, the files the exact count', async () => {
    // 10,050 nodes written as the NDJSON store writes them, imported into the database.
    const data = path.join(tmp.dir, 'many-data');
    const file = path.join(data, 'projects', 'many', 'knowledge_graph.ndjson');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const start = Date.parse('2026-01-01T00:00:00.000Z');
    const lines: string[] = [];
    for (let i = 0; i < 10_050; i++) {
      const node = { id: `n${i}`, project: 'many', projectContext: 'many', thought: `Plenty of words ${i % 3 ? 'alpha' : 'omega'} in node ${i}`, role: 'actor', tags: [], artifacts: [], parents: [], createdAt: new Date(start + i * 1000).toISOString() };
      lines.push(JSON.stringify(node));
    }
    fs.writeFileSync(file, lines.join('\n') + '\n');
    const url = await pg.createTestDatabase();
    await cli(['db', 'import', '--data-dir', data, '--database-url', url]);
    // Words and exclusions are counted from the term bitmaps, newest chunks first, up to the cap.
    const words = await cliJson(['knowledge', 'search', 'many', 'plenty -zebra', '--database-url', url, '--limit', '3']);
    expect([words.total, words.totalExact, words.hits.length]).toEqual([10_000, false, 3]);
    expect(await cli(['knowledge', 'search', 'many', 'plenty -zebra', '--database-url', url, '--limit', '1'])).toMatch(/^10,000\+ node\(s\) of project 'many' match; best first:/);
    // A phrase of two words present in the database is scored match by match, so its total is exact.
    const both = await cliJson(['knowledge', 'search', 'many', '"plenty of words" -zebra', '--database-url', url, '--limit', '3']);
    expect([both.total, both.totalExact, both.hits.length]).toEqual([10_050, true, 3]);
    // With a filter the matches are counted through GIN, up to the cap.
    const inDb = await cliJson(['knowledge', 'search', 'many', 'plenty -zebra', '--role', 'actor', '--database-url', url, '--limit', '3']);
    expect([inDb.total, inDb.totalExact]).toEqual([10_000, false]);
    expect(inDb.hits).toHaveLength(3);
    expect(await cli(['knowledge', 'search', 'many', 'plenty -zebra', '--role', 'actor', '--database-url', url, '--limit', '1'])).toMatch(/^10,000\+ node\(s\) of project 'many' match; best first:/);
    // One word alone: its document count, exact at any size.
    expect(await cli(['knowledge', 'search', 'many', 'plenty', '--database-url', url, '--limit', '1'])).toMatch(/^10,050 node\(s\) of project 'many' match/);
    // Under the cap the count is exact: 'omega' is in every third node.
    expect(await cli(['knowledge', 'search', 'many', 'plenty', 'omega', '--database-url', url, '--limit', '1'])).toMatch(/^3,350 node\(s\) of project 'many' match/);
    // The files score every match: their total is exact.
    const inFiles = await cliJson(['knowledge', 'search', 'many', 'plenty -zebra', '--data-dir', data, '--limit', '3']);
    expect([inFiles.total, inFiles.totalExact]).toEqual([10_050, true]);
    expect(await cli(['knowledge', 'search', 'many', 'plenty -zebra', '--data-dir', data, '--limit', '1'])).toMatch(/^10,050 node\(s\) of project 'many' match/);
  }, 240_000);
});
