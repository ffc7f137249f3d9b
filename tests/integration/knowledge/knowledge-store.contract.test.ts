import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { createNdjsonKnowledgeStore, NdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { PgKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/postgres/pg-knowledge-store';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import { knowledgeStoreContract } from '../../contracts/knowledge-store.contract';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';

/** The KnowledgeStore contract against every adapter: the NDJSON files of a data dir and a real PostgreSQL server. */

/** A clock a second apart per call: two deletes in one test get distinct backup times without waiting. */
const steppingClock = () => {
  let now = Date.parse('2026-11-30T10:00:00.000Z');
  return { now: () => (now += 1000) };
};

const ndjson = knowledgeStoreContract('ndjson files', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-knowledge-contract-'));
  return { store: createNdjsonKnowledgeStore(dir, { clock: steppingClock() }), cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
});

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const postgresql = knowledgeStoreContract('postgresql', async () => {
  const db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 6 });
  await migrate(db, knowledgeMigrations);
  return { store: new PgKnowledgeStore(db, { clock: steppingClock() }), cleanup: () => db.close() };
});

// Registered last, so it runs after both suites: they ran every case, each against the adapter meant.
it('ran every case of the contract against the NDJSON store and the PostgreSQL store', () => {
  expect(ndjson.cases.length).toBeGreaterThanOrEqual(15);
  expect(postgresql.cases).toEqual(ndjson.cases);
  expect([...ndjson.adapters]).toEqual([NdjsonKnowledgeStore.name]);
  expect([...postgresql.adapters]).toEqual([PgKnowledgeStore.name]);
});
