import { PgDatabase, type NamedStatement, type SqlRunner } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import { PgKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/postgres/pg-knowledge-store';
import { pgSearch } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search';
import { cacheWords } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search-cached';
import { FAST_PAGE, fastFirstPage } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search-fast';
import type { PgSearchCache } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search-cache';
import type { KnowledgeSearchPage } from '../../../src/modules/knowledge/application/ports/knowledge-store';
import { parseSearchQuery } from '../../../src/modules/knowledge/domain';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';
import { generateNodes, type NodeText } from '../../helpers/pg-search-fixture';

/**
 * Knowledge migration 14: appends post nothing; every search posts the rows past the project's posted_up_to before it
 * reads a posting, count, level or bitmap (pg-search-catch-up.ts) — and since migration 16 computes their vectors
 * first (an append leaves it NULL; postgres-search-lazy-vector.test.ts). Each search path — the one-word statement, the
 * level walk, a phrase, the cache's load, its refresh, its fast path — is run right after an append and must find
 * the new rows (counted through GIN, which needs no postings), and the catch-up must come before every statement but
 * the fast path's (which reads no postings and answers only when every row is posted: it goes first, so a search with
 * nothing to post is one statement). A write committed after a search's catch-up stays outside that search (its
 * watermark is posted_up_to), and so does one committed after the fast path's statement answered.
 */

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const WORDS = 'alpha bravo charlie delta echo foxtrot'.split(' ');
const text = (project: string): NodeText => ({ project, words: WORDS, minWords: 3, spanWords: 10, tags: WORDS, tagRate: 0.3, artifactRate: 0.1 });
const MIB = 1024 * 1024;
/** The fast path's one statement (pg-search-fast.ts). */
const FAST_PAGE_TEXT = FAST_PAGE.text;

/** A SqlRunner recording every statement's text, optionally running `after` once when a statement matching it returns. */
function recording(db: SqlRunner, hook?: { when: RegExp; run: () => Promise<unknown> }) {
  const texts: string[] = [];
  let hooked = false;
  const runner: SqlRunner = {
    async query(sql: string | NamedStatement, params?: readonly unknown[]) {
      const t = typeof sql === 'string' ? sql : sql.text;
      texts.push(t);
      const rows = await db.query(sql, params);
      if (hook && !hooked && hook.when.test(t)) {
        hooked = true;
        await hook.run();
      }
      return rows as never;
    },
  };
  return { runner, texts };
}

/** Live matches of `query` through GIN (no postings read), those at or below `upTo` when given. */
async function ginCount(db: PgDatabase, project: string, query: string, upTo?: string): Promise<number> {
  const [r] = await db.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM wg_knowledge_nodes WHERE project = $1 AND search @@ websearch_to_tsquery('english', $2) AND ($3::bigint IS NULL OR seq <= $3::bigint)`,
    [project, query, upTo ?? null],
  );
  return Number(r!.n);
}

const posted = async (db: PgDatabase, project: string) =>
  (await db.query<{ p: string }>('SELECT posted_up_to::text AS p FROM wg_knowledge_projects WHERE project = $1', [project]))[0]!.p;

async function setup() {
  const db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 4 });
  await migrate(db, knowledgeMigrations);
  return { db, plain: new PgKnowledgeStore(db), cached: new PgKnowledgeStore(db, { searchCacheBytes: 64 * MIB }) };
}

it('every search path posts the rows appended since before it reads postings: one word, level walk, phrase, cache load, refresh and fast path', async () => {
  const { db, plain, cached } = await setup();
  const cache = cached.searchCache!;
  let made = 0;
  const append = async (project: string, n: number) => {
    await plain.withLock(project, (g) => g.append(generateNodes(text(project), n, 7 + made, made)));
    made += n;
  };
  /**
   * One search on `runner`, checked: the catch-up before every statement but the fast path's (alone when it answers),
   * every match found.
   */
  const check = async (label: string, project: string, query: string, c?: PgSearchCache, fastAnswers = false) => {
    const { runner, texts } = recording(db);
    const page: KnowledgeSearchPage = await pgSearch(runner, project, { query: parseSearchQuery(query), limit: 5 }, 10_000, 'auto', c);
    const want = await ginCount(db, project, query);
    const rest = texts.filter((t) => t !== FAST_PAGE_TEXT);
    expect({ label, first: rest[0], fastOnly: texts.length === 1 && texts[0] === FAST_PAGE_TEXT, total: page.total, hits: page.hits.length }).toEqual({
      label,
      first: fastAnswers ? undefined : expect.stringContaining('wg_knowledge_postings_catch_up('),
      fastOnly: fastAnswers,
      total: want,
      hits: Math.min(5, want),
    });
  };
  try {
    for (const [i, [label, query]] of ([['one word', 'alpha'], ['level walk', 'alpha bravo'], ['phrase', '"alpha bravo"'], ['exclusion', 'alpha -bravo']] as const).entries()) {
      await append(`p${i}`, 150);
      await check(label, `p${i}`, query);
    }
    // The cache: a first load of the lists, a refresh after more appends, then the fast path after more again.
    await append('pc', 150);
    await check('cache load', 'pc', 'alpha bravo', cache);
    expect(cache.counters.loads).toBe(1);
    await append('pc', 60);
    await check('cache refresh', 'pc', 'alpha bravo', cache);
    // The fast path tried first and discarded its page (rows not posted: a write since), then the catch-up and the
    // sync's refresh.
    expect([cache.counters.syncs, cache.counters.stale]).toEqual([2, 1]);
    await check('fast path', 'pc', 'alpha bravo', cache, true);
    expect(cache.counters.fast).toBe(1);
    await append('pc', 60);
    await check('after the fast path', 'pc', 'alpha bravo', cache);
    expect([cache.counters.fast, cache.counters.stale]).toEqual([1, 2]);
  } finally {
    await db.close();
  }
}, 120_000);

it('rows committed after a search posted its project stay outside it: the fast path discards its page, every path answers the posted rows', async () => {
  const { db, plain, cached } = await setup();
  const cache = cached.searchCache!;
  const P = 'late';
  try {
    await plain.withLock(P, (g) => g.append(generateNodes(text(P), 200, 3)));
    const q = { query: parseSearchQuery('alpha bravo'), limit: 5 };
    await cached.reader(P).search(q);
    await cached.reader(P).search(q);
    expect(cache.counters.fast).toBe(1);
    let late = 200;
    // Another writer commits matching rows right after this search's catch-up — or, for the fast path, which answers
    // without one, right after its statement: unposted while the search reads.
    const racing = (c?: PgSearchCache, query = 'alpha bravo', when = /wg_knowledge_postings_catch_up\(/) => {
      const { runner } = recording(db, {
        when,
        run: () => plain.withLock(P, (g) => g.append(generateNodes({ ...text(P), minWords: 6 }, 40, late, (late += 40) - 40))),
      });
      return pgSearch(runner, P, { query: parseSearchQuery(query), limit: 5 }, 10_000, 'auto', c);
    };
    for (const [label, c, query] of [['fast path', cache, 'alpha bravo'], ['cache', cache, 'alpha bravo'], ['level walk', undefined, 'alpha bravo'], ['one word', undefined, 'alpha']] as const) {
      const stale = cache.counters.stale;
      const fast = cache.counters.fast;
      const page = await racing(c, query, label === 'fast path' ? /posted_up_to FROM wg_knowledge_projects WHERE project = \$1\)::text AS w/ : undefined);
      const upTo = await posted(db, P);
      const [top] = await db.query<{ s: string }>('SELECT max(seq)::text AS s FROM wg_knowledge_nodes WHERE project = $1', [P]);
      expect(BigInt(top!.s)).toBeGreaterThan(BigInt(upTo));
      expect({ label, total: page.total }).toEqual({ label, total: await ginCount(db, P, query, upTo) });
      for (const h of page.hits) expect(Number(h.node.id.slice(1))).toBeLessThan(late - 40);
      // The fast path answered as of its statement's snapshot (the write came after it); the next search sees the
      // unposted rows as a write since and leaves the fast path.
      if (label === 'fast path') expect([cache.counters.fast, cache.counters.stale]).toEqual([fast + 1, stale]);
      if (label === 'cache') expect(cache.counters.stale).toBe(stale + 1);
    }
  } finally {
    await db.close();
  }
}, 120_000);

it("the fast path's own check sees rows past the watermark as a write since, whatever its caller posted", async () => {
  const { db, plain, cached } = await setup();
  const cache = cached.searchCache!;
  const P = 'unposted';
  try {
    await plain.withLock(P, (g) => g.append(generateNodes(text(P), 200, 5)));
    const q = { query: parseSearchQuery('alpha bravo'), limit: 5 };
    await cached.reader(P).search(q);
    // One row appended, so the next search's fast path declines (a row not posted) and it posts and syncs.
    await plain.withLock(P, (g) => g.append(generateNodes(text(P), 1, 7, 220)));
    // A search whose sync sees rows appended right after its catch-up: the cache's state is as of posted_up_to with
    // that append's version, those rows past the watermark.
    const { runner } = recording(db, { when: /wg_knowledge_postings_catch_up\(/, run: () => plain.withLock(P, (g) => g.append(generateNodes(text(P), 20, 6, 200))) });
    await pgSearch(runner, P, q, 10_000, 'auto', cache);
    const words = cacheWords(q, cache.hasSource('pair'))!;
    const stale = cache.counters.stale;
    expect(await fastFirstPage(cache, db, P, q, words, 10_000)).toBeUndefined();
    expect(cache.counters.stale).toBe(stale + 1);
    // (Since migration 16 those rows have no vector yet either: only a catch-up computes it.)
    const unvectored = async () =>
      (await db.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM wg_knowledge_nodes n JOIN wg_knowledge_projects j ON j.project = n.project WHERE n.project = $1 AND n.seq > j.posted_up_to AND n.search IS NULL`,
        [P],
      ))[0]!.n;
    expect(await unvectored()).toBe('20');
    // Posted by the next search (its catch-up) and refreshed: the fast path answers again.
    await cached.reader(P).search(q);
    expect(await unvectored()).toBe('0');
    expect((await fastFirstPage(cache, db, P, q, words, 10_000))?.total).toBe(await ginCount(db, P, 'alpha bravo'));
  } finally {
    await db.close();
  }
}, 120_000);
