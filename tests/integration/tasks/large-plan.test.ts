import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ProjectLayout } from '../../../src/kernel/files/project-layout';
import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import type { TaskGraphStore } from '../../../src/modules/tasks/application/ports/task-graph-store';
import { FileTaskGraphStore } from '../../../src/modules/tasks/infrastructure/file-task-graph-store';
import { PgTaskGraphStore } from '../../../src/modules/tasks/infrastructure/postgres/pg-task-graph-store';
import { tasksMigrations } from '../../../src/modules/tasks/infrastructure/postgres/tasks-migrations';
import { livingPlanFixture } from '../../contracts/living-plan.contract';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';

/**
 * Every task tool on a 10,000-task plan, on both stores. init_project_graph of 10,000 tasks on PostgreSQL failed
 * before (`bind message has 4464 parameter formats but 0 parameters`: 7 parameters per transition row passed the
 * 65,535 limit); this test failed then.
 */
const N = 10_000;
const nodes = Array.from({ length: N }, (_, i) => ({ id: `t${i}`, title: `Task ${i}`, ...(i % 100 ? { depends_on: [`t${i - (i % 100)}`] } : {}) }));

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

async function everyTool(store: TaskGraphStore): Promise<void> {
  const fx = livingPlanFixture(store);
  try {
    const created = await fx.init.execute({ projectName: 'big', projectRoot: fx.root, nodes });
    expect(created.nodes).toHaveLength(N);
    expect(created.counts).toMatchObject({ READY: 100, PENDING: N - 100 });
    expect((await fx.ready.execute({ project: 'big' })).ready_count).toBe(100);
    const claimed = await fx.claimNext.execute({ project: 'big', agent: 'a' });
    expect(claimed.node).toMatchObject({ id: 't0', status: 'IN_PROGRESS' });
    expect(((await fx.validate.execute({ project: 'big', nodeId: 't0', agent: 'a' })) as { unlocked: string[] }).unlocked).toHaveLength(99);
    await fx.start.execute({ project: 'big', nodeId: 't100', agent: 'a' });
    await fx.release.execute({ project: 'big', nodeId: 't100', agent: 'a' });
    await fx.add.execute({ project: 'big', nodes: [{ id: 'extra', title: 'Extra', depends_on: ['t1'] }] });
    await fx.update.execute({ project: 'big', nodeId: 'extra', priority: 'high', tags: ['late'] });
    await fx.split.execute({ project: 'big', nodeId: 't200', into: [{ id: 't200a', title: 'A' }, { id: 't200b', title: 'B', depends_on: ['t200a'] }] });
    await fx.remove.execute({ project: 'big', nodeIds: ['extra'] });
    expect((await fx.reset.execute({ project: 'big', nodeId: 't0' })).reverted).toHaveLength(99);
    const details = await fx.details.execute({ project: 'big', nodeId: 't200a' });
    expect(details.node.split_from).toBe('t200');
    const graph = await fx.graph.execute({ project: 'big' });
    expect(graph.nodes).toHaveLength(N + 1);
    expect(graph.history.map((h) => h.action).slice(-5)).toEqual(['add_tasks', 'update_task', 'split_task', 'remove_tasks', 'reset_task_node']);
    expect((await store.readTransitions('big')).length).toBeGreaterThan(N);
  } finally {
    fx.cleanup();
  }
}

it('every tool works on a 10,000-task plan in the file store', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-big-'));
  try {
    await everyTool(new FileTaskGraphStore(new ProjectLayout(dir)));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

it('every tool works on a 10,000-task plan in PostgreSQL', async () => {
  const db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 4 });
  try {
    await migrate(db, tasksMigrations);
    await everyTool(new PgTaskGraphStore(db));
  } finally {
    await db.close();
  }
}, 120_000);
