import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';

/**
 * SqlRunner's named form ({name, text}): the statement is prepared once on a connection and reused by name there —
 * on the pool and in a transaction — with the same answers as the plain text form; an error in it is the kernel's.
 */
describe('PgDatabase: named (prepared) statements', () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startTestPostgres();
  }, 120_000);
  afterAll(async () => pg?.stop());

  const twice = { name: 'wg_test_twice', text: 'SELECT $1::int * 2 AS n, (SELECT count(*) FROM pg_prepared_statements WHERE name = $2)::int AS prepared' };

  it('prepares the statement once per connection and answers as the text form does', async () => {
    const db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 1 });
    try {
      // The first run prepares it (pg_prepared_statements lists it while it runs), later runs find it prepared.
      expect(await db.query(twice, [21, twice.name])).toEqual([{ n: 42, prepared: 1 }]);
      expect(await db.query(twice, [5, twice.name])).toEqual([{ n: 10, prepared: 1 }]);
      expect(await db.query(twice.text, [5, twice.name])).toEqual([{ n: 10, prepared: 1 }]);
      const [{ calls }] = await db.query<{ calls: string }>(`SELECT count(*)::text AS calls FROM pg_prepared_statements WHERE name = $1`, [twice.name]);
      expect(calls).toBe('1');
      // In a transaction, on its client: the same statement by name.
      expect(await db.transaction((tx) => tx.query(twice, [7, twice.name]))).toEqual([{ n: 14, prepared: 1 }]);
    } finally {
      await db.close();
    }
  });

  it('fails a bad named statement with storage_error, and the connection keeps working', async () => {
    const db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 1 });
    try {
      await expect(db.query({ name: 'wg_test_bad', text: 'SELECT 1 / $1::int AS x' }, [0])).rejects.toMatchObject({ code: 'storage_error' });
      expect(await db.query({ name: 'wg_test_bad', text: 'SELECT 1 / $1::int AS x' }, [1])).toEqual([{ x: 1 }]);
      expect(await db.query(twice, [1, twice.name])).toEqual([{ n: 2, prepared: 1 }]);
    } finally {
      await db.close();
    }
  });
});
