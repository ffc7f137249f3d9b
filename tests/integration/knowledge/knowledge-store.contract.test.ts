import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { createNdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
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

knowledgeStoreContract('ndjson files', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-knowledge-contract-'));
  return { store: createNdjsonKnowledgeStore(dir, { clock: steppingClock() }), cleanup: async () => fs.rmSync(dir, { recursive: true, force: true }) };
});

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

knowledgeStoreContract('postgresql', async () => {
  const db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 6 });
  await migrate(db, knowledgeMigrations);
  return { store: new PgKnowledgeStore(db, { clock: steppingClock() }), cleanup: () => db.close() };
});
