import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import { PgKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/postgres/pg-knowledge-store';
import { pgSearch } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search';
import type { KnowledgeSearchPage } from '../../../src/modules/knowledge/application/ports/knowledge-store';
import { parseSearchQuery, staleSearchCursorError } from '../../../src/modules/knowledge/domain';
import { ErrorCodes } from '../../../src/kernel/errors';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';
import { prng } from '../../helpers/prng';
import { deleteNodes, generateNodes, type NodeText } from '../../helpers/pg-search-fixture';

/**
 * The per-host postings cache of PostgreSQL search (pg-search-cache.ts) on a real PostgreSQL: every page it answers —
 * hits, scores, order, cursors, totals — equals scoring every match in SQL, first pages and every later page, while
 * adds, deletes, restores and in-place updates go on, on the searching host or on another one (two stores, two
 * pools, one database). Without the change log (migration 10's triggers dropped) the cache goes stale: the test that
 * proves the log is needed.
 */

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const P = 'pc';
const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel'.split(' ');
const TEXT: NodeText = { project: P, words: WORDS, minWords: 3, spanWords: 20, tags: WORDS, tagRate: 0.4, artifactRate: 0.15 };
const MIB = 1024 * 1024;

const view = (p: KnowledgeSearchPage) => ({ hits: p.hits.map((h) => [h.node.id, h.score, h.deleted]), next: p.nextCursor, total: p.total, exact: p.totalExact });

/** Two stores on one database through two pools (two hosts): `writer` without a cache, `searcher` with one. */
async function twoHosts(opts: { dropChangeLog?: boolean; migrations?: typeof knowledgeMigrations } = {}) {
  const url = await pg.createTestDatabase();
  const a = new PgDatabase(url, { poolSize: 3 });
  const b = new PgDatabase(url, { poolSize: 3 });
  await migrate(a, opts.migrations ?? knowledgeMigrations);
  if (opts.dropChangeLog) await a.query('DROP TRIGGER wg_knowledge_changes_del ON wg_knowledge_nodes; DROP TRIGGER wg_knowledge_changes_upd ON wg_knowledge_nodes');
  const writer = new PgKnowledgeStore(a);
  const searcher = new PgKnowledgeStore(b, { searchCacheBytes: 64 * MIB });
  return { a, b, writer, searcher, close: async () => (await a.close(), await b.close()) };
}

/**
 * Random queries of 2–3 words (some with an exclusion, some with a stopword: the SQL path), each page through the
 * searcher's cache beside score-every-match on the writer's pool, every page to the end; between queries random adds,
 * deletes, restores and in-place rewrites (a summary recalculated) by `writeStore`. Returns the mismatching pages.
 */
async function scenario(writeStore: PgKnowledgeStore, searcher: PgKnowledgeStore, db: PgDatabase, seed: number, rounds: number) {
  const rand = prng(seed);
  const word = () => WORDS[Math.floor(rand() * WORDS.length)]!;
  let next = 600;
  const nodes = generateNodes(TEXT, next, seed);
  for (let i = 0; i < nodes.length; i += 200) await writeStore.withLock(P, (g) => g.append(nodes.slice(i, i + 200)));
  const gone: Awaited<ReturnType<typeof deleteNodes>> = [];
  const mismatches: unknown[] = [];
  let pages = 0;
  for (let round = 0; round < rounds; round++) {
    const op = rand();
    if (op < 0.25) {
      await writeStore.withLock(P, (g) => g.append(generateNodes(TEXT, 1 + Math.floor(rand() * 30), seed * 1000 + round, next)));
      next += 30;
    } else if (op < 0.45) {
      gone.push(...(await deleteNodes(writeStore, P, Array.from({ length: 1 + Math.floor(rand() * 5) }, () => `n${Math.floor(rand() * next)}`))));
    } else if (op < 0.55 && gone.length) {
      const back = gone.splice(Math.floor(rand() * gone.length), 1);
      await writeStore.withLock(P, (g) => g.restore(back));
    } else if (op < 0.75) {
      const ids = new Set(Array.from({ length: 1 + Math.floor(rand() * 4) }, () => `n${Math.floor(rand() * next)}`));
      const thought = Array.from({ length: 2 + Math.floor(rand() * 8) }, word).join(' ');
      await writeStore.withLock(P, (g) => g.updateNodes(ids, (n) => ({ ...n, thought })));
    }
    const ws = Array.from({ length: 2 + Math.floor(rand() * 2) }, word);
    const query = [...ws, ...(rand() < 0.3 ? [`-${word()}`] : []), ...(rand() < 0.05 ? ['the'] : [])].join(' ');
    const base = { query: parseSearchQuery(query), limit: 1 + Math.floor(rand() * 25) };
    let [c1, c2]: [string | undefined, string | undefined] = [undefined, undefined];
    for (let p = 0; p < 200; p++) {
      const got = await searcher.reader(P).search({ ...base, ...(c1 ? { cursor: c1 } : {}) });
      const want = await pgSearch(db, P, { ...base, ...(c2 ? { cursor: c2 } : {}) }, 10_000, 'score-every-match');
      pages++;
      if (JSON.stringify(view(got)) !== JSON.stringify(view(want))) mismatches.push({ round, query, page: p, got: view(got), want: view(want) });
      if (!got.nextCursor || !want.nextCursor) break;
      [c1, c2] = [got.nextCursor, want.nextCursor];
    }
    // The first page again, nothing written since: the fast path's (its parse remembered, its lists held).
    const again = await searcher.reader(P).search(base);
    const want = await pgSearch(db, P, base, 10_000, 'score-every-match');
    pages++;
    if (JSON.stringify(view(again)) !== JSON.stringify(view(want))) mismatches.push({ round, query, page: 'again', got: view(again), want: view(want) });
  }
  return { mismatches, pages };
}

it('answers every page exactly as scoring every match, through adds, deletes, restores and rewrites on the same host', async () => {
  const url = await pg.createTestDatabase();
  const db = new PgDatabase(url, { poolSize: 4 });
  try {
    await migrate(db, knowledgeMigrations);
    const store = new PgKnowledgeStore(db, { searchCacheBytes: 64 * MIB });
    const { mismatches, pages } = await scenario(store, store, db, 3, 60);
    expect(mismatches.slice(0, 2)).toEqual([]);
    const c = store.searchCache!.counters;
    expect(pages).toBeGreaterThan(150);
    expect(c.answered + c.fast).toBeGreaterThan(pages * 0.6);
    // Every repeated first page at least, and the first pages of rounds that wrote nothing.
    expect(c.fast).toBeGreaterThan(40);
    expect(c.syncs).toBeGreaterThan(20);
  } finally {
    await db.close();
  }
}, 300_000);

it('two hosts on one database: the one searching from its cache answers what SQL answers after each write of the other', async () => {
  const h = await twoHosts();
  try {
    const { mismatches, pages } = await scenario(h.writer, h.searcher, h.a, 5, 60);
    expect(mismatches.slice(0, 2)).toEqual([]);
    const c = h.searcher.searchCache!.counters;
    expect(c.answered + c.fast).toBeGreaterThan(pages * 0.6);
    expect(c.fast).toBeGreaterThan(40);
  } finally {
    await h.close();
  }
}, 300_000);

it('the fast path (a repeated first page: one statement) discards its page when another host wrote since: append, delete, rewrite, restore', async () => {
  const h = await twoHosts();
  try {
    await h.writer.withLock(P, (g) => g.append(generateNodes(TEXT, 400, 41)));
    const c = h.searcher.searchCache!.counters;
    const q = { query: parseSearchQuery('alpha bravo -charlie'), limit: 4 };
    const sql = async () => view(await pgSearch(h.a, P, q, 10_000, 'score-every-match'));
    const search = async () => view(await h.searcher.reader(P).search(q));
    // The first search parses the text and loads the lists; the second is answered in one statement.
    expect(await search()).toEqual(await sql());
    expect(c.fast).toBe(0);
    expect(await search()).toEqual(await sql());
    expect(c).toMatchObject({ fast: 1, stale: 0 });
    let gone: Awaited<ReturnType<typeof deleteNodes>> = [];
    const top = async () => (await pgSearch(h.a, P, q, 10_000, 'score-every-match')).hits[0]!.node.id;
    const writes: Array<[string, () => Promise<unknown>]> = [
      ['append', () => h.writer.withLock(P, (g) => g.append(generateNodes({ ...TEXT, words: ['alpha', 'bravo'], tags: ['alpha'], minWords: 12, spanWords: 1 }, 3, 42, 400)))],
      ['delete', async () => (gone = await deleteNodes(h.writer, P, [await top()]))],
      ['rewrite', async () => h.writer.withLock(P, async (g) => g.updateNodes(new Set([await top()]), (n) => ({ ...n, thought: 'delta', tags: [], artifacts: [] })))],
      ['restore', () => h.writer.withLock(P, (g) => g.restore(gone))],
    ];
    for (const [i, [write, run]] of writes.entries()) {
      const before = await search();
      // Nothing written since the last search: the fast path's page.
      expect({ write, fast: c.fast, stale: c.stale }).toEqual({ write, fast: 2 + i, stale: i });
      await run();
      const truth = await sql();
      // The write moved the answer (else a stale page could not be told from a fresh one here)…
      expect({ write, same: JSON.stringify(truth) === JSON.stringify(before) }).toEqual({ write, same: false });
      // … and the searcher, whose fast path saw the project's state differ, answers the new truth.
      expect({ write, page: await search() }).toEqual({ write, page: truth });
      expect({ write, stale: c.stale }).toEqual({ write, stale: i + 1 });
    }
  } finally {
    await h.close();
  }
}, 120_000);

it("the cache's cursors (a fast-path first page, a cached later page) are refused after another host's delete, rewrite or restore; not after an append", async () => {
  const h = await twoHosts();
  try {
    await h.writer.withLock(P, (g) => g.append(generateNodes(TEXT, 400, 43)));
    const c = h.searcher.searchCache!.counters;
    const q = { query: parseSearchQuery('alpha bravo -charlie'), limit: 4 };
    const search = (cursor?: string) => h.searcher.reader(P).search({ ...q, ...(cursor ? { cursor } : {}) });
    const stale = { code: ErrorCodes.InvalidArguments, message: staleSearchCursorError().message };
    /** A fast-path first page's cursor and the cached second page's. */
    const cursors = async () => {
      await search();
      const fast = c.fast;
      const first = await search();
      expect(c.fast).toBe(fast + 1);
      const answered = c.answered;
      const second = await search(first.nextCursor!);
      expect(c.answered).toBe(answered + 1);
      return [first.nextCursor!, second.nextCursor!];
    };
    let gone: Awaited<ReturnType<typeof deleteNodes>> = [];
    const top = async () => (await search()).hits[0]!.node.id;
    let before = await cursors();
    await h.writer.withLock(P, (g) => g.append(generateNodes(TEXT, 20, 44, 400)));
    for (const cursor of before) expect((await search(cursor)).hits).toHaveLength(4);
    const writes: Array<[string, () => Promise<unknown>]> = [
      ['delete', async () => (gone = await deleteNodes(h.writer, P, [await top()]))],
      ['rewrite', async () => h.writer.withLock(P, async (g) => g.updateNodes(new Set([await top()]), (n) => ({ ...n, thought: 'delta', tags: [], artifacts: [] })))],
      ['restore', () => h.writer.withLock(P, (g) => g.restore(gone))],
    ];
    for (const [write, run] of writes) {
      before = await cursors();
      await run();
      for (const cursor of before) await expect(search(cursor).catch((e) => Promise.reject({ write, code: e.code, message: e.message }))).rejects.toEqual({ write, ...stale });
    }
  } finally {
    await h.close();
  }
}, 120_000);

it('without the change log the cache misses deletes and rewrites: the same scenario fails (the log is what keeps it exact)', async () => {
  const h = await twoHosts({ dropChangeLog: true });
  try {
    const { mismatches } = await scenario(h.writer, h.searcher, h.a, 5, 60);
    expect(mismatches.length).toBeGreaterThan(0);
  } finally {
    await h.close();
  }
}, 300_000);

it('migration 10 on a database with rows logs later deletes and rewrites; a log trimmed past a cache reloads it; 0 bytes is no cache', async () => {
  const h = await twoHosts({ migrations: knowledgeMigrations.filter((m) => m.version < 10) });
  try {
    await h.writer.withLock(P, (g) => g.append(generateNodes(TEXT, 300, 11)));
    await migrate(h.a, knowledgeMigrations);
    expect((await h.a.query('SELECT count(*)::int AS n FROM wg_knowledge_changes'))[0]!.n).toBe(0);
    const q = { query: parseSearchQuery('alpha bravo -charlie'), limit: 10 };
    const same = async () => expect(view(await h.searcher.reader(P).search(q))).toEqual(view(await pgSearch(h.a, P, q, 10_000, 'score-every-match')));
    await same();
    await deleteNodes(h.writer, P, ['n1', 'n2', 'n3']);
    await h.writer.withLock(P, (g) => g.updateNodes(new Set(['n4', 'n5']), (n) => ({ ...n, thought: 'alpha alpha bravo' })));
    const logged = await h.a.query<{ seq: string }>('SELECT seq::text AS seq FROM wg_knowledge_changes WHERE project = $1 ORDER BY id', [P]);
    expect(logged.length).toBe(5);
    await same();
    const c = h.searcher.searchCache!.counters;
    const loads = c.loads;
    // Changes trimmed past what the cache read: it cannot know what it missed, so it reloads.
    await h.writer.withLock(P, (g) => g.updateNodes(new Set(['n6']), (n) => ({ ...n, thought: 'bravo alpha delta' })));
    await h.a.query(`INSERT INTO wg_knowledge_change_floors (project, floor) VALUES ($1, (SELECT max(id) FROM wg_knowledge_changes))`, [P]);
    await h.a.query('DELETE FROM wg_knowledge_changes');
    await same();
    expect(c.loads).toBe(loads + 1);
    expect(new PgKnowledgeStore(h.b, { searchCacheBytes: 0 }).searchCache).toBeUndefined();
  } finally {
    await h.close();
  }
}, 120_000);

it('past its byte budget the cache drops lists least recently used first and stays exact', async () => {
  const url = await pg.createTestDatabase();
  const db = new PgDatabase(url, { poolSize: 3 });
  try {
    await migrate(db, knowledgeMigrations);
    const writer = new PgKnowledgeStore(db);
    await writer.withLock(P, (g) => g.append(generateNodes(TEXT, 2000, 17)));
    // About three lists' worth: every query of other words evicts the older ones.
    const store = new PgKnowledgeStore(db, { searchCacheBytes: 40_000 });
    const cache = store.searchCache!;
    for (const query of ['alpha bravo', 'charlie delta', 'echo foxtrot', 'alpha golf', 'hotel bravo -alpha', 'alpha bravo']) {
      const q = { query: parseSearchQuery(query), limit: 7 };
      expect(view(await store.reader(P).search(q))).toEqual(view(await pgSearch(db, P, q, 10_000, 'score-every-match')));
      expect(cache.bytes).toBeLessThanOrEqual(40_000);
    }
    expect(cache.counters.answered + cache.counters.fallbacks + cache.counters.fast).toBe(6);
    expect(cache.counters.loads).toBeGreaterThanOrEqual(5);
  } finally {
    await db.close();
  }
}, 120_000);

it('concurrent searches on one host over a stale cache (one sync at a time, loads racing) answer what SQL answers; totals past the cap as SQL', async () => {
  const url = await pg.createTestDatabase();
  const db = new PgDatabase(url, { poolSize: 6 });
  try {
    await migrate(db, knowledgeMigrations);
    const writer = new PgKnowledgeStore(db);
    const searcher = new PgKnowledgeStore(db, { searchCacheBytes: 64 * MIB, searchTotalCap: 50 });
    const cache = searcher.searchCache!;
    await writer.withLock(P, (g) => g.append(generateNodes(TEXT, 800, 23)));
    const queries = ['alpha bravo', 'bravo charlie -delta', 'alpha charlie echo', 'delta echo', 'golf hotel -alpha', 'alpha bravo -hotel', 'echo foxtrot', 'bravo golf'];
    for (let round = 0; round < 4; round++) {
      if (round > 0) {
        await deleteNodes(writer, P, [`n${round * 7}`, `n${round * 11}`]);
        await writer.withLock(P, (g) => g.updateNodes(new Set([`n${round * 13}`]), (n) => ({ ...n, thought: 'alpha bravo charlie alpha' })));
        await writer.withLock(P, (g) => g.append(generateNodes(TEXT, 20, 100 + round, 800 + round * 20)));
      }
      const pages = await Promise.all(queries.map((query) => searcher.reader(P).search({ query: parseSearchQuery(query), limit: 5 })));
      for (const [i, query] of queries.entries()) {
        const q = { query: parseSearchQuery(query), limit: 5 };
        const every = await pgSearch(db, P, q, 10_000, 'score-every-match');
        const got = pages[i]!;
        // Past the cap (50) a first page answers the cap and totalExact false; hits and cursor as scoring every match.
        expect({ query, hits: view(got).hits, next: got.nextCursor }).toEqual({ query, hits: view(every).hits, next: every.nextCursor });
        expect({ query, total: got.total, exact: got.totalExact }).toEqual({ query, total: Math.min(every.total, 50), exact: every.total <= 50 });
        // A later page: as the SQL path with the same cap.
        if (got.nextCursor) {
          const next = { ...q, cursor: got.nextCursor };
          expect(view(await searcher.reader(P).search(next))).toEqual(view(await pgSearch(db, P, next, 50, 'auto')));
        }
      }
    }
    expect(cache.counters.answered).toBeGreaterThan(20);
  } finally {
    await db.close();
  }
}, 180_000);

it('a project whose seqs reach 2^31 is not cached (the lists are int4): its searches take the SQL path and stay exact', async () => {
  const url = await pg.createTestDatabase();
  const db = new PgDatabase(url, { poolSize: 3 });
  try {
    await migrate(db, knowledgeMigrations);
    const store = new PgKnowledgeStore(db, { searchCacheBytes: 64 * MIB });
    await store.withLock(P, (g) => g.append(generateNodes(TEXT, 200, 31)));
    const q = { query: parseSearchQuery('alpha bravo -charlie'), limit: 6 };
    expect(view(await store.reader(P).search(q))).toEqual(view(await pgSearch(db, P, q, 10_000, 'score-every-match')));
    expect(store.searchCache!.counters.answered).toBe(1);
    await db.query(`SELECT setval('wg_knowledge_seq', 2147483640)`);
    await store.withLock(P, (g) => g.append(generateNodes(TEXT, 20, 32, 200)));
    for (let i = 0; i < 2; i++) expect(view(await store.reader(P).search(q))).toEqual(view(await pgSearch(db, P, q, 10_000, 'score-every-match')));
    expect(store.searchCache!.counters).toMatchObject({ answered: 1, fallbacks: 2 });
  } finally {
    await db.close();
  }
}, 60_000);
