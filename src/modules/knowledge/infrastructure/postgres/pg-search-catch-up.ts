import type { SqlRunner } from '../../../../kernel/postgres/pg-database';

/** Named: every search calls it first, so it is parsed once per connection. */
const CATCH_UP = { name: 'wg_knowledge_postings_catch_up_call', text: 'SELECT wg_knowledge_postings_catch_up($1) AS more' };

/**
 * Posts the project's rows past its `posted_up_to` (knowledge migration 14: appends write no postings, term counts,
 * levels or bitmaps; migration 16: nor their vectors, computed here first) — the one entry every search goes through
 * before it reads any of those tables (pgSearch: the one-word statement, the SQL path, the cache's loads and refreshes, the fast path). One call posts at most
 * CATCH_UP_ROWS rows in its own transaction (each statement under the pool's timeout); calls repeat until none are
 * left. Not inside a REPEATABLE READ transaction: its snapshot would not see the writes it waited for.
 */
export async function catchUpPostings(sql: SqlRunner, project: string): Promise<void> {
  for (;;) {
    const [row] = await sql.query<{ more: boolean }>(CATCH_UP, [project]);
    if (!row?.more) return;
  }
}
