import { InProcessChangeEvents, type ChangeEvent } from '../../../src/kernel/change-events';
import { PgChangeBridge } from '../../../src/kernel/postgres/pg-change-bridge';
import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { createTaskGraph } from '../../../src/modules/tasks/domain/create-task-graph';
import { PgTaskGraphStore } from '../../../src/modules/tasks/infrastructure/postgres/pg-task-graph-store';
import { tasksMigrations } from '../../../src/modules/tasks/infrastructure/postgres/tasks-migrations';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';

/** LISTEN/NOTIFY feeds the change events of every process of a database, and survives a database restart. */
describe('PgChangeBridge', () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startTestPostgres();
  }, 120_000);
  afterAll(async () => pg?.stop());

  const until = async (what: string, probe: () => boolean, ms = 20_000) => {
    const end = Date.now() + ms;
    while (!probe()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };

  it('a change committed through one process reaches the change events of another, and again after a restart', async () => {
    const url = await pg.createTestDatabase();
    const writerDb = new PgDatabase(url);
    const listenerDb = new PgDatabase(url);
    await migrate(writerDb, tasksMigrations);
    const events = new InProcessChangeEvents();
    const seen: ChangeEvent[] = [];
    events.subscribe((e) => seen.push(e));
    const bridge = new PgChangeBridge(listenerDb, events);
    listenerDb.onClose(() => bridge.close());
    await bridge.ready;
    const store = new PgTaskGraphStore(writerDb);
    try {
      const graph = (id: string) => createTaskGraph({ projectId: id, projectName: id, projectRoot: '/r', nodes: [{ id: 'a', title: 'A' }], now: new Date().toISOString() });
      await store.create(graph('alpha'));
      await until('the alpha event', () => seen.some((e) => e.kind === 'tasks' && e.project === 'alpha'));
      // A rolled-back change notifies nobody.
      await expect(store.update('alpha', () => { throw new Error('refused'); })).rejects.toThrow('refused');
      await pg.stopServer!();
      await pg.startServer!();
      await until('the bridge to listen again and a new change to arrive', () => {
        void store.create(graph(`beta${seen.length}`), { replace: true }).catch(() => undefined);
        return seen.some((e) => e.project?.startsWith('beta'));
      }, 40_000);
      expect(seen.filter((e) => e.project === 'alpha')).toHaveLength(1);
    } finally {
      await writerDb.close();
      await listenerDb.close();
    }
  }, 90_000);
});
