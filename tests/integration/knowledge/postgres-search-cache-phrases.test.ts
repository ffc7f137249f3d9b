import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import { PgKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/postgres/pg-knowledge-store';
import { pgSearch } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search';
import type { KnowledgeSearchPage } from '../../../src/modules/knowledge/application/ports/knowledge-store';
import { parseSearchQuery } from '../../../src/modules/knowledge/domain';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';
import { prng } from '../../helpers/prng';
import { deleteNodes, generateNodes, type NodeText } from '../../helpers/pg-search-fixture';

/**
 * Phrases through the search cache (pg-search-cached-phrases.ts, the pair lists as unscored required lists): every
 * page of `"a b"`, `a "b c"`, `"a b c"`, `x -"a b"` equals scoring every match in SQL — hits, scores, order, cursors,
 * totals — across listed chunks, chunks not built yet and the newest one, while adds, deletes, restores and
 * rewrites go on; the cache answers most of them, and a phrase with a stopword inside takes the SQL path.
 */

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const P = 'cp';
const WORDS = 'alpha bravo charlie delta echo the foxtrot of golf'.split(' ');
const CONTENT = WORDS.filter((w) => w !== 'the' && w !== 'of');
const TEXT: NodeText = { project: P, words: WORDS, minWords: 3, spanWords: 16, tags: CONTENT, tagRate: 0.4, artifactRate: 0.15 };
const MIB = 1024 * 1024;

const view = (p: KnowledgeSearchPage) => ({ hits: p.hits.map((h) => [h.node.id, h.score, h.deleted]), next: p.nextCursor, total: p.total, exact: p.totalExact });

it.each([
  ['on the searching host', false],
  ['on another host (its own pool, no cache)', true],
])('phrase queries through the cache equal scoring every match: every page, through writes %s across listed, unbuilt and newest chunks', async (_, twoHosts) => {
  const url = await pg.createTestDatabase();
  const db = new PgDatabase(url, { poolSize: 4 });
  const other = twoHosts ? new PgDatabase(url, { poolSize: 2 }) : undefined;
  try {
    await migrate(db, knowledgeMigrations);
    const cached = new PgKnowledgeStore(db, { searchCacheBytes: 64 * MIB });
    // Writes through `store` (the other host's when two), searches through `cached`.
    const store = other ? new PgKnowledgeStore(other) : cached;
    const rand = prng(23);
    const word = () => CONTENT[Math.floor(rand() * rand() * CONTENT.length)]!;
    let next = 0;
    const add = async (n: number) => {
      await store.withLock(P, (g) => g.append(generateNodes(TEXT, n, 1000 + next, next)));
      next += n;
    };
    await add(500);
    await db.query(`SELECT setval('wg_knowledge_seq', 8192 - 150)`);
    await add(400);
    const gone: Awaited<ReturnType<typeof deleteNodes>> = [];
    let pages = 0;
    const kinds = new Set<string>();
    for (let round = 0; round < 40; round++) {
      const op = rand();
      if (round === 25) await db.query(`SELECT setval('wg_knowledge_seq', 2 * 8192 - 40)`);
      if (op < 0.25 || round === 25) await add(1 + Math.floor(rand() * 60));
      else if (op < 0.4) gone.push(...(await deleteNodes(store, P, Array.from({ length: 1 + Math.floor(rand() * 4) }, () => `n${Math.floor(rand() * next)}`))));
      else if (op < 0.5 && gone.length) await store.withLock(P, (g) => g.restore(gone.splice(Math.floor(rand() * gone.length), 1)));
      else if (op < 0.65) {
        const ids = new Set(Array.from({ length: 1 + Math.floor(rand() * 3) }, () => `n${Math.floor(rand() * next)}`));
        const thought = Array.from({ length: 3 + Math.floor(rand() * 8) }, word).join(' ');
        await store.withLock(P, (g) => g.updateNodes(ids, (n) => ({ ...n, thought })));
      }
      const kind = round % 6;
      kinds.add(String(kind));
      const query =
        kind === 0 ? `"${word()} ${word()}"`
        : kind === 1 ? `${word()} "${word()} ${word()}"`
        : kind === 2 ? `"${word()} ${word()} ${word()}"`
        : kind === 3 ? `${word()} ${word()} -"${word()} ${word()}"`
        : kind === 4 ? `"${word()} ${word()}" -${word()}`
        : `"${word()} the ${word()}"`;
      const base = { query: parseSearchQuery(query), limit: 1 + Math.floor(rand() * 20) };
      let [c1, c2]: [string | undefined, string | undefined] = [undefined, undefined];
      for (let p = 0; p < 100; p++) {
        const got = await cached.reader(P).search({ ...base, ...(c1 ? { cursor: c1 } : {}) });
        const want = await pgSearch(db, P, { ...base, ...(c2 ? { cursor: c2 } : {}) }, 10_000, 'score-every-match');
        pages++;
        expect({ round, query, p, page: view(got) }).toEqual({ round, query, p, page: view(want) });
        if (!got.nextCursor || !want.nextCursor) break;
        [c1, c2] = [got.nextCursor, want.nextCursor];
      }
    }
    const c = cached.searchCache!.counters;
    expect(pages).toBeGreaterThan(120);
    // Most pages from the lists (a gap, and later pages of a longer phrase, take the SQL path).
    expect(c.answered + c.fast).toBeGreaterThan(pages * 0.5);
  } finally {
    await other?.close();
    await db.close();
  }
}, 300_000);

it('a phrase is answered from the lists, a gap and a lone one-word phrase take the SQL path, and a cached phrase answers with totals as SQL does (cap too)', async () => {
  const url = await pg.createTestDatabase();
  const db = new PgDatabase(url, { poolSize: 4 });
  try {
    await migrate(db, knowledgeMigrations);
    await new PgKnowledgeStore(db).withLock(P, (g) => g.append(generateNodes(TEXT, 1500, 5)));
    const store = new PgKnowledgeStore(db, { searchCacheBytes: 64 * MIB });
    for (const [query, cap] of [['"alpha bravo"', 10_000], ['"alpha bravo"', 5], ['alpha "bravo charlie"', 10_000], ['"alpha the bravo"', 10_000], ['"alpha"', 10_000]] as const) {
      const q = { query: parseSearchQuery(query), limit: 5 };
      const c = store.searchCache!.counters;
      const before = c.answered + c.fast;
      const got = await pgSearch(db, P, q, cap, 'auto', store.searchCache);
      // (Scoring every match counts them all, whatever the cap: the SQL path's first page counts up to it.)
      expect(view(got)).toEqual(view(await pgSearch(db, P, q, cap, cap < 10_000 ? 'auto' : 'score-every-match')));
      // (The second '"alpha bravo"', nothing written between, is the fast path's: its total capped at 5 there.)
      const answered = c.answered + c.fast - before;
      expect({ query, answered }).toEqual({ query, answered: query.includes('the') || query === '"alpha"' ? 0 : 1 });
    }
  } finally {
    await db.close();
  }
}, 120_000);
