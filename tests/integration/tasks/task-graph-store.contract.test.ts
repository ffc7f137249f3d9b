import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ProjectLayout } from '../../../src/kernel/files/project-layout';
import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { FileTaskGraphStore } from '../../../src/modules/tasks/infrastructure/file-task-graph-store';
import { PgTaskGraphStore } from '../../../src/modules/tasks/infrastructure/postgres/pg-task-graph-store';
import { tasksMigrations } from '../../../src/modules/tasks/infrastructure/postgres/tasks-migrations';
import { taskGraphStoreContract, taskGraphStoreImportContract } from '../../contracts/task-graph-store.contract';
import { livingPlanContract } from '../../contracts/living-plan.contract';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';

/** The TaskGraphStore contract against every adapter: the data-dir files and a real PostgreSQL server. */
const files = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-tasks-contract-'));
  return { store: new FileTaskGraphStore(new ProjectLayout(dir)), cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
};
const fileRuns = [taskGraphStoreContract('files', files), taskGraphStoreImportContract('files', files), livingPlanContract('files', files)];

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const postgres = async () => {
  const db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 12 });
  await migrate(db, tasksMigrations);
  return { store: new PgTaskGraphStore(db), cleanup: () => db.close() };
};
const pgRuns = [taskGraphStoreContract('postgresql', postgres), taskGraphStoreImportContract('postgresql', postgres), livingPlanContract('postgresql', postgres)];

// Registered last, so it runs after the suites: they ran every case, each against the adapter meant.
it('ran every case of both contracts against the file store and the PostgreSQL store', () => {
  const [core, imports, plan] = fileRuns;
  expect(core.cases.length).toBeGreaterThanOrEqual(10);
  expect(imports.cases.length).toBeGreaterThanOrEqual(2);
  expect(plan.cases.length).toBeGreaterThanOrEqual(9);
  expect(pgRuns.map((r) => r.cases)).toEqual(fileRuns.map((r) => r.cases));
  for (const r of fileRuns) expect([...r.adapters]).toEqual([FileTaskGraphStore.name]);
  for (const r of pgRuns) expect([...r.adapters]).toEqual([PgTaskGraphStore.name]);
});
