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
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';

/** The TaskGraphStore contract against every adapter: the data-dir files and a real PostgreSQL server. */
const files = async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-tasks-contract-'));
  return { store: new FileTaskGraphStore(new ProjectLayout(dir)), cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
};
taskGraphStoreContract('files', files);
taskGraphStoreImportContract('files', files);

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
taskGraphStoreContract('postgresql', postgres);
taskGraphStoreImportContract('postgresql', postgres);
