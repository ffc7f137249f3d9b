import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { createTaskGraph } from '../../../src/modules/tasks/domain/create-task-graph';
import { addTasks, removeTasks, splitTask, updateTask } from '../../../src/modules/tasks/domain/plan-edits';
import type { TaskGraph } from '../../../src/modules/tasks/domain/task-graph';
import { PgTaskGraphStore } from '../../../src/modules/tasks/infrastructure/postgres/pg-task-graph-store';
import { tasksMigrations } from '../../../src/modules/tasks/infrastructure/postgres/tasks-migrations';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';

/**
 * The PostgreSQL task store's rows (migration 4): a row per task, edits that write only the rows they change, graphs
 * held in memory and brought up to date from the rows other servers wrote, and the move of version-3 json rows.
 */
let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const dbs: PgDatabase[] = [];
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.close();
});
const open = (url: string) => {
  const db = new PgDatabase(url, { poolSize: 3 });
  dbs.push(db);
  return db;
};
const now = '2026-12-01T10:00:00.000Z';
const graphOf = (id: string, n: number): TaskGraph =>
  createTaskGraph({ projectId: id, projectName: id, projectRoot: '/tmp', now, nodes: Array.from({ length: n }, (_, i) => ({ id: `t${i}`, title: `T${i}`, ...(i ? { depends_on: [`t${i - 1}`] } : {}) })) });
/** The graph as plain JSON (held graphs are frozen objects; compare values). */
const plain = (g: TaskGraph | undefined) => JSON.parse(JSON.stringify(g));

it('moves version-3 json rows to a row per task in one migration, nothing lost, in order, and edits work after it', async () => {
  const url = await pg.createTestDatabase();
  const db = open(url);
  await migrate(db, tasksMigrations.filter((m) => m.version <= 3));
  const old = graphOf('old', 5);
  // The order of the stored list is not the id order: it must come back as it was.
  const graph = { ...old, revision: 7, nodes: [old.nodes[3], old.nodes[0], old.nodes[4], old.nodes[1], old.nodes[2]] };
  await db.query('INSERT INTO wg_task_graphs (project_id, graph, revision) VALUES ($1, $2, $3)', ['old', JSON.stringify(graph), 7]);
  await db.query("INSERT INTO wg_task_transitions (project_id, node, from_status, to_status, time, attempt) VALUES ('old', 't0', 'READY', 'READY', $1, 0)", [now]);
  await db.query("INSERT INTO wg_task_history (project_id, revision, nodes, entry) VALUES ('old', 7, '{}', $1)", [JSON.stringify({ revision: 7, time: now, actor: { identity: 'a', agent: null, host: 'h' }, action: 'init_project_graph', reason: 'r', nodes: [] })]);
  const applied = await migrate(db, tasksMigrations);
  expect(applied.map((m) => m.version)).toEqual([4]);
  expect(await db.query("SELECT to_regclass('wg_task_graphs') AS t")).toEqual([{ t: null }]);

  const store = new PgTaskGraphStore(db);
  expect(plain(await store.load('old'))).toEqual(plain(graph));
  expect(await store.readTransitions('old')).toEqual([{ node: 't0', from: 'READY', to: 'READY', time: now, attempt: 0 }]);
  expect((await store.readHistory('old')).map((h) => h.revision)).toEqual([7]);
  await store.update('old', (g) => ({ graph: updateTask(g, 't4', { title: 'edited' }, now).graph, value: undefined }));
  const after = await new PgTaskGraphStore(db).load('old');
  expect(after!.revision).toBe(8);
  expect(after!.nodes.map((n) => [n.id, n.title])).toEqual([['t3', 'T3'], ['t0', 'T0'], ['t4', 'edited'], ['t1', 'T1'], ['t2', 'T2']]);
});

it('an edit writes only the task rows it changed (and the project row); reads of the whole graph are one query', async () => {
  const url = await pg.createTestDatabase();
  const db = open(url);
  await migrate(db, tasksMigrations);
  const store = new PgTaskGraphStore(db);
  await store.create(graphOf('p', 50));
  const seqs = async () => new Map((await db.query<{ node_id: string; write_seq: string }>("SELECT node_id, write_seq FROM wg_tasks WHERE project_id = 'p'")).map((r) => [r.node_id, Number(r.write_seq)]));
  const before = await seqs();
  await store.update('p', (g) => ({ graph: updateTask(g, 't7', { title: 'seven' }, now).graph, value: undefined }));
  const afterUpdate = await seqs();
  expect([...afterUpdate].filter(([id, s]) => s !== before.get(id)).map(([id]) => id)).toEqual(['t7']);
  await store.update('p', (g) => ({ graph: addTasks(g, [{ id: 'new', title: 'N', depends_on: ['t3'] }], now).graph, value: undefined }));
  const afterAdd = await seqs();
  expect([...afterAdd].filter(([id, s]) => s !== afterUpdate.get(id)).map(([id]) => id)).toEqual(['new']);
  // A read of the whole graph, by a server holding it and by one that does not: one statement each.
  const reader = open(url);
  let statements = 0;
  const query = reader.query.bind(reader);
  reader.query = ((sql: string, params?: readonly unknown[]) => (statements++, query(sql, params))) as typeof reader.query;
  const other = new PgTaskGraphStore(reader);
  expect((await other.load('p'))!.nodes).toHaveLength(51);
  expect((await other.load('p'))!.nodes).toHaveLength(51);
  expect(statements).toBe(2);
  const project = await db.query<{ write_seq: string; node_count: number; revision: number }>("SELECT write_seq, node_count, revision FROM wg_task_projects WHERE project_id = 'p'");
  expect(project[0]).toMatchObject({ node_count: 51, revision: 2 });
  expect(Number(project[0].write_seq)).toBe(afterAdd.get('new'));
});

it('a server holding a graph reads what another server changed: edits, additions, removals and a split put in the middle', async () => {
  const url = await pg.createTestDatabase();
  const setup = open(url);
  await migrate(setup, tasksMigrations);
  const a = new PgTaskGraphStore(open(url));
  const b = new PgTaskGraphStore(open(url));
  await a.create(graphOf('p', 8));
  expect((await a.load('p'))!.nodes).toHaveLength(8);
  const same = async () => {
    const fresh = plain(await new PgTaskGraphStore(setup).load('p'));
    expect(plain(await a.load('p'))).toEqual(fresh);
    expect(plain(await b.load('p'))).toEqual(fresh);
    return fresh as TaskGraph;
  };
  await b.update('p', (g) => ({ graph: updateTask(g, 't2', { title: 'two', priority: 'high' }, now).graph, value: undefined }));
  expect((await same()).nodes[2]).toMatchObject({ id: 't2', title: 'two', priority: 'high' });
  await b.update('p', (g) => ({ graph: addTasks(g, [{ id: 'x', title: 'X' }], now).graph, value: undefined }));
  expect((await same()).nodes.map((n) => n.id)).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6', 't7', 'x']);
  await b.update('p', (g) => ({ graph: removeTasks(g, ['x'], {}, now).graph, value: undefined }));
  expect((await same()).nodes).toHaveLength(8);
  // Split in the middle (t3 → s1, s2 where t3 was), twice in the same gap, then by the other server.
  await b.update('p', (g) => ({ graph: splitTask(g, 't3', [{ id: 's1', title: 'S1' }, { id: 's2', title: 'S2', depends_on: ['s1'] }], now).graph, value: undefined }));
  await b.update('p', (g) => ({ graph: splitTask(g, 's1', [{ id: 'u1', title: 'U1' }, { id: 'u2', title: 'U2', depends_on: ['u1'] }], now).graph, value: undefined }));
  await a.update('p', (g) => ({ graph: splitTask(g, 'u2', [{ id: 'v1', title: 'V1' }, { id: 'v2', title: 'V2', depends_on: ['v1'] }], now).graph, value: undefined }));
  const split = await same();
  expect(split.nodes.map((n) => n.id)).toEqual(['t0', 't1', 't2', 'u1', 'v1', 'v2', 's2', 't4', 't5', 't6', 't7']);
  expect(split.nodes.find((n) => n.id === 't4')!.depends_on).toEqual(['s2']);
  // Many splits in one gap exhaust the numbers between two positions: the store renumbers and the order holds.
  let last = 'v2';
  for (let i = 0; i < 60; i++) {
    const at = last;
    await (i % 2 ? a : b).update('p', (g) => ({ graph: splitTask(g, at, [{ id: `w${i}a`, title: 'W' }, { id: `w${i}b`, title: 'W', depends_on: [`w${i}a`] }], now).graph, value: undefined }));
    last = `w${i}a`;
  }
  const many = await same();
  expect(many.nodes).toHaveLength(11 + 60);
  expect(many.nodes.slice(0, 4).map((n) => n.id)).toEqual(['t0', 't1', 't2', 'u1']);
  expect(many.nodes.slice(-5).map((n) => n.id)).toEqual(['s2', 't4', 't5', 't6', 't7']);
});
