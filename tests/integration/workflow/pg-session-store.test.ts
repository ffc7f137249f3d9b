import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { PgSessionStore, databaseTokenKey } from '../../../src/modules/workflow/infrastructure/postgres/pg-session-store';
import { workflowMigrations } from '../../../src/modules/workflow/infrastructure/postgres/sessions-migrations';
import { HmacSessionTokens } from '../../../src/modules/workflow/infrastructure/sessions/hmac-session-tokens';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';
import { sessionStoreContract } from './session-store.contract';

/** The SessionStore contract against a real PostgreSQL server, and the token key shared through the database. */
let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const fresh = async () => {
  const db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 12 });
  await migrate(db, workflowMigrations);
  return db;
};

sessionStoreContract('postgresql', async () => {
  const db = await fresh();
  return { store: new PgSessionStore(db), cleanup: () => db.close() };
});

describe('session tokens over one database', () => {
  it('a token signed through one server verifies on another server of the same database, not of another one', async () => {
    const db = await fresh();
    const other = await fresh();
    const second = new PgDatabase((db as unknown as { url: string }).url);
    try {
      const a = new HmacSessionTokens(databaseTokenKey(db));
      const b = new HmacSessionTokens(databaseTokenKey(second));
      const foreign = new HmacSessionTokens(databaseTokenKey(other));
      const token = await a.sign({ kind: 'continue', sessionId: '0123456789abcdef', node: 7 });
      expect(token.length).toBeLessThan(40);
      expect(await b.verify(token, 'continueToken')).toEqual({ kind: 'continue', sessionId: '0123456789abcdef', node: 7 });
      await expect(foreign.verify(token, 'continueToken')).rejects.toMatchObject({ code: 'invalid_token' });
    } finally {
      await Promise.all([db.close(), other.close(), second.close()]);
    }
  });
});
