import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import { PgKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/postgres/pg-knowledge-store';
import { parseSearchQuery } from '../../../src/modules/knowledge/domain';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';
import { generateNodes, type NodeText } from '../../helpers/pg-search-fixture';

/**
 * No search statement scans the nodes table when nothing is to be posted (pg-search-watermark.ts): the catch-up
 * function (migration 15), the one-word statement, the fast path, the cache's sync and the statistics ask whether
 * rows are past the watermark of the newest row. Asked as a range, the planner estimated a third of the table and a
 * generic plan (a prepared statement's, PL/pgSQL's after five calls) scanned it all: 200 ms a search at 1,000,000
 * nodes. Each path runs ten times on one connection (past the five custom plans); the table's sequential scans are
 * counted by PostgreSQL's statistics (flushed when the connection closes).
 */

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const WORDS = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}x`);
const text = (project: string): NodeText => ({ project, words: WORDS, minWords: 4, spanWords: 8, tags: WORDS.slice(0, 20), tagRate: 0.3, artifactRate: 0.1 });
const P = 'plans';
/**
 * One word, the level walk, a phrase, an exclusion, an OR of rare words, two rare words. (An OR of common words
 * scores its matches through GIN, a fifth of the table here: a scan is then the planner's fair choice.)
 */
const QUERIES = ['w0x', 'w0x w1x', '"w0x w1x"', 'w0x -w1x', 'wa0x OR wa1x', 'wa0x wa1x'];

async function seqScans(url: string): Promise<number> {
  const db = new PgDatabase(url, { poolSize: 1 });
  try {
    await db.query('SELECT pg_stat_clear_snapshot()');
    const [r] = await db.query<{ n: string }>(`SELECT seq_scan::text AS n FROM pg_stat_user_tables WHERE relname = 'wg_knowledge_nodes'`);
    return Number(r!.n);
  } finally {
    await db.close();
  }
}

/** Runs every query `times` times through a store on one connection, with and without the cache; closes it. */
async function searchAll(url: string, times: number): Promise<void> {
  const db = new PgDatabase(url, { poolSize: 1 });
  try {
    for (const store of [new PgKnowledgeStore(db), new PgKnowledgeStore(db, { searchCacheBytes: 64 * 1024 * 1024 })]) {
      for (let i = 0; i < times; i++) for (const q of QUERIES) await store.reader(P).search({ query: parseSearchQuery(q), limit: 10 });
    }
  } finally {
    await db.close();
  }
}

/** Waits for the closed connections' statistics (written as a backend exits) to settle. */
async function settledScans(url: string): Promise<number> {
  let last = await seqScans(url);
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 250));
    const now = await seqScans(url);
    if (now === last && i >= 3) return now;
    last = now;
  }
  return last;
}

it('searches with nothing to post never scan the nodes table, past the generic plans (30,000 nodes)', async () => {
  const url = await pg.createTestDatabase();
  const setup = new PgDatabase(url, { poolSize: 2 });
  try {
    await migrate(setup, knowledgeMigrations);
    const store = new PgKnowledgeStore(setup);
    for (let from = 0; from < 30_000; from += 5_000) await store.withLock(P, (g) => g.append(generateNodes(text(P), 5_000, 11 + from, from)));
    await store.reader(P).search({ query: parseSearchQuery('w0x'), limit: 10 }); // the catch-up posts them all
    await setup.query('ANALYZE');
  } finally {
    await setup.close();
  }
  // Warm: every path once (the cache's lists loaded, its parses memoized) — then counted.
  await searchAll(url, 1);
  const before = await settledScans(url);
  await searchAll(url, 10);
  const after = await settledScans(url);
  expect({ seqScansOfTheNodesTable: after - before }).toEqual({ seqScansOfTheNodesTable: 0 });
}, 180_000);
