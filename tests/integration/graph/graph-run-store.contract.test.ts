import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { FileGraphRunStore } from '../../../src/modules/graph/infrastructure/file-graph-run-store';
import { PgGraphRunStore } from '../../../src/modules/graph/infrastructure/postgres/pg-graph-run-store';
import { graphMigrations } from '../../../src/modules/graph/infrastructure/postgres/graph-runs-migrations';
import { graphRunStoreContract } from '../../contracts/graph-run-store.contract';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';

/** The GraphRunStore contract against every adapter: the data-dir files and a real PostgreSQL server. */
const files = graphRunStoreContract('files', async (keep) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-runs-contract-'));
  return { store: new FileGraphRunStore(dir, keep), cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
});

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const postgresql = graphRunStoreContract('postgresql', async (keep) => {
  const db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 8 });
  await migrate(db, graphMigrations);
  return { store: new PgGraphRunStore(db, keep), cleanup: () => db.close() };
});

// Registered last, so it runs after both suites: they ran every case, each against the adapter meant.
it('ran every case of the contract against the file store and the PostgreSQL store', () => {
  expect(files.cases.length).toBeGreaterThanOrEqual(7);
  expect(postgresql.cases).toEqual(files.cases);
  expect([...files.adapters]).toEqual([FileGraphRunStore.name]);
  expect([...postgresql.adapters]).toEqual([PgGraphRunStore.name]);
});
