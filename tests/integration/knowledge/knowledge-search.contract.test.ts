import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { createNdjsonKnowledgeStore, NdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { PgKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/postgres/pg-knowledge-store';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import { knowledgeSearchContract } from '../../contracts/knowledge-search.contract';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';

/** The search contract against the NDJSON files (and their index) and a real PostgreSQL server. */

const ndjson = knowledgeSearchContract('ndjson files', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-knowledge-search-'));
  return { store: createNdjsonKnowledgeStore(dir), cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
});

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const postgresql = knowledgeSearchContract('postgresql', async (opts) => {
  const db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 4 });
  await migrate(db, knowledgeMigrations);
  return { store: new PgKnowledgeStore(db, { searchTotalCap: opts?.searchTotalCap }), cleanup: () => db.close() };
});

it('ran every case of the search contract against the NDJSON store and the PostgreSQL store', () => {
  expect(ndjson.cases.length).toBeGreaterThanOrEqual(12);
  expect(postgresql.cases).toEqual(ndjson.cases);
  expect([...ndjson.adapters]).toEqual([NdjsonKnowledgeStore.name]);
  expect([...postgresql.adapters]).toEqual([PgKnowledgeStore.name]);
});
