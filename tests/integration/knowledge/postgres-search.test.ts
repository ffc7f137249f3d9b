import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import { pgSearch, tsqueryExpr } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search';
import { countByBits } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search-count';
import { catchUpPostings } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search-catch-up';
import type { KnowledgeSearchPage, KnowledgeSearchQuery } from '../../../src/modules/knowledge/application/ports/knowledge-store';
import type { KnowledgeRole } from '../../../src/modules/knowledge/domain';
import { parseSearchQuery } from '../../../src/modules/knowledge/domain';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';
import { prng } from '../../helpers/prng';
import { deleteNodes, freshKnowledgeStore, generateNodes, type NodeText } from '../../helpers/pg-search-fixture';

/**
 * search_nodes' PostgreSQL side beyond the contract suite: the impact-ordered postings (migration 5) index the rows
 * already there and follow every write; a search that walks one term's postings and stops after the page answers
 * exactly what scoring every match answers (randomized, page after page); the total past the cap.
 */

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const P = 'demo';
const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike'.split(' ');
const TAGS = ['red', 'green', 'blue'];
const ROLES: KnowledgeRole[] = ['actor', 'critic', 'summary'];

// A skewed vocabulary (early words more often) and 3 to 14 words: many ties, many distinct impacts.
const TEXT: NodeText = { project: P, words: WORDS, minWords: 3, spanWords: 12, tags: TAGS, tagRate: 0.5, artifactRate: 0.1 };
const generate = (count: number, seed: number, from = 0) => generateNodes(TEXT, count, seed, from);

const freshStore = (opts: Parameters<typeof freshKnowledgeStore>[1] = {}) => freshKnowledgeStore(pg, opts);

/** Every page of a search, one strategy. */
async function allPages(db: PgDatabase, q: Omit<KnowledgeSearchQuery, 'query' | 'limit'> & { query: string; limit: number }, strategy: 'auto' | 'score-every-match') {
  const pages: KnowledgeSearchPage[] = [];
  let cursor: string | undefined;
  do {
    const page = await pgSearch(db, P, { ...q, query: parseSearchQuery(q.query), ...(cursor ? { cursor } : {}) }, 10_000, strategy);
    pages.push(page);
    cursor = page.nextCursor ?? undefined;
  } while (cursor && pages.length < 50);
  return pages;
}

const shape = (pages: KnowledgeSearchPage[]) => pages.map((p) => p.hits.map((h) => [h.node.id, h.score, h.deleted]));

/** The postings and term counts recomputed from the nodes, beside what the triggers kept. */
async function postingsDrift(db: PgDatabase): Promise<{ stored: number; missing: number; extra: number; badCounts: number; badBits: number }> {
  const [r] = await db.query<{ stored: string; missing: string; extra: string; bad: string; bits: string }>(`
    WITH want AS (SELECT n.project, p.term, p.impact, n.seq FROM wg_knowledge_nodes n, wg_knowledge_postings_of(n.search) p)
    SELECT (SELECT count(*) FROM wg_knowledge_postings)::text AS stored,
      (SELECT count(*) FROM (SELECT * FROM want EXCEPT SELECT project, term, impact, seq FROM wg_knowledge_postings) x)::text AS missing,
      (SELECT count(*) FROM (SELECT project, term, impact, seq FROM wg_knowledge_postings EXCEPT SELECT * FROM want) x)::text AS extra,
      (SELECT count(*) FROM (SELECT project, term, count(*) AS docs FROM want GROUP BY 1, 2) w
         FULL JOIN (SELECT * FROM wg_knowledge_terms WHERE docs > 0) t USING (project, term) WHERE w.docs IS DISTINCT FROM t.docs)::text AS bad,
      (SELECT count(*) FROM (SELECT n.project, u.lexeme COLLATE "C" AS term, n.seq / 8192 AS chunk, bit_or(wg_knowledge_bit(n.seq)) AS bits
           FROM wg_knowledge_nodes n, unnest(n.search) u GROUP BY 1, 2, 3) w
         FULL JOIN (SELECT * FROM wg_knowledge_term_bits WHERE bit_count(bits) > 0) b USING (project, term, chunk) WHERE w.bits IS DISTINCT FROM b.bits)::text AS bits`);
  return { stored: Number(r!.stored), missing: Number(r!.missing), extra: Number(r!.extra), badCounts: Number(r!.bad), badBits: Number(r!.bits) };
}

it('migrations 5 and 6 index the nodes already there (postings, term counts, term bitmaps); the triggers follow adds, deletes, restores and updates', async () => {
  const { db, store } = await freshStore({ migrations: knowledgeMigrations.filter((m) => m.version < 5) });
  try {
    await store.withLock(P, (g) => g.append(generate(300, 1)));
    await migrate(db, knowledgeMigrations);
    const after = await postingsDrift(db);
    expect(after).toEqual({ stored: expect.any(Number), missing: 0, extra: 0, badCounts: 0, badBits: 0 });
    expect(after.stored).toBeGreaterThan(300);
    // The migrated rows are searchable by the walk: the same pages as scoring every match.
    const q = { query: 'alpha', limit: 7 };
    expect(shape(await allPages(db, q, 'auto'))).toEqual(shape(await allPages(db, q, 'score-every-match')));

    // Seqs across bitmap chunks (8,192 seqs each): the next nodes start just below a chunk's end.
    await db.query(`SELECT setval('wg_knowledge_seq', 3 * 8192 - 40)`);
    await store.withLock(P, (g) => g.append(generate(100, 2, 300)));
    const gone = await deleteNodes(store, P, ['n3', 'n10', 'n301']);
    await store.withLock(P, (g) => g.restore([gone[0]!]));
    await store.withLock(P, (g) => g.updateNodes(new Set(['n20', 'n21']), (n) => ({ ...n, thought: 'mike mike mike kilo' })));
    // Appends post nothing (migration 14); a search's catch-up posts them, with n301 (never posted) deleted before.
    await catchUpPostings(db, P);
    expect(await postingsDrift(db)).toEqual({ stored: expect.any(Number), missing: 0, extra: 0, badCounts: 0, badBits: 0 });
  } finally {
    await db.close();
  }
}, 120_000);

it('walking one term answers exactly what scoring every match answers, page after page (randomized)', async () => {
  const { db, store } = await freshStore();
  try {
    const nodes = generate(2000, 7);
    for (let i = 0; i < nodes.length; i += 500) await store.withLock(P, (g) => g.append(nodes.slice(i, i + 500)));
    const gone = await deleteNodes(store, P, nodes.filter((_, i) => i % 97 === 0).map((n) => n.id));
    const rand = prng(11);
    const word = () => WORDS[Math.floor(rand() * WORDS.length)]!;
    let walked = 0;
    for (let round = 0; round < 20; round++) {
      const w = word();
      const other = word();
      const query = [w, `${w} -${other}`, `${w} OR zyzzyva`, `"${w} ${other}"`, `${w} ${other}`][round % 5]!;
      const q = {
        query,
        limit: 1 + Math.floor(rand() * 40),
        ...(rand() < 0.3 ? { role: ROLES[Math.floor(rand() * 3)] } : {}),
        ...(rand() < 0.3 ? { tags: [TAGS[Math.floor(rand() * 3)]!] } : {}),
        ...(rand() < 0.3 ? { includeDeleted: true } : {}),
      };
      const auto = await allPages(db, q, 'auto');
      const every = await allPages(db, q, 'score-every-match');
      expect({ query: q, pages: shape(auto) }).toEqual({ query: q, pages: shape(every) });
      expect(auto.map((p) => p.total)).toEqual(every.map((p) => p.total));
      if (round % 5 < 3 && w !== other) walked++;
      // Sorted best first, newest first on ties, every hit once.
      const hits = auto.flatMap((p) => p.hits);
      expect(new Set(hits.map((h) => h.node.id)).size).toBe(hits.length);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]!.score).toBeGreaterThanOrEqual(hits[i]!.score);
    }
    expect(walked).toBeGreaterThanOrEqual(10);
  } finally {
    await db.close();
  }
}, 300_000);

it('a one-word first page (one statement: statistics, postings and nodes) answers what scoring every match answers', async () => {
  const { db, store } = await freshStore({ searchTotalCap: 50 });
  try {
    await store.withLock(P, (g) => g.append(generate(600, 5)));
    const gone = await deleteNodes(store, P, ['n1', 'n2', 'n50']);
    for (const word of [...WORDS, 'zyzzyva', 'Alphas']) {
      for (const limit of [1, 9, 100]) {
        const first = (strategy: 'auto' | 'score-every-match') => pgSearch(db, P, { query: parseSearchQuery(word), limit }, 50, strategy);
        const [auto, every] = [await first('auto'), await first('score-every-match')];
        const view = (p: KnowledgeSearchPage) => ({ word, limit, hits: p.hits.map((h) => [h.node.id, h.score, h.node.thought]), more: p.nextCursor !== null });
        expect(view(auto)).toEqual(view(every));
        // The total is the term's document count, exact past the cap; the next page continues where this one ends.
        const docs = (await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM wg_knowledge_nodes WHERE project = $1 AND search @@ websearch_to_tsquery('english', $2)`, [P, word]))[0]!.n;
        expect([auto.total, auto.totalExact]).toEqual([Number(docs), true]);
        if (auto.nextCursor) {
          const next = (strategy: 'auto' | 'score-every-match', cursor: string) => pgSearch(db, P, { query: parseSearchQuery(word), limit, cursor }, 50, strategy);
          expect(shape([await next('auto', auto.nextCursor)])).toEqual(shape([await next('score-every-match', every.nextCursor!)]));
        }
      }
    }
  } finally {
    await db.close();
  }
}, 120_000);

it('the term bitmaps count what GIN counts, for words, prefixes, OR and exclusions, at any watermark (randomized)', async () => {
  const { db, store } = await freshStore();
  try {
    // Three runs of nodes in three bitmap chunks, the second straddling a chunk's end.
    await store.withLock(P, (g) => g.append(generate(400, 21)));
    await db.query(`SELECT setval('wg_knowledge_seq', 2 * 8192 - 150)`);
    await store.withLock(P, (g) => g.append(generate(400, 22, 400)));
    await db.query(`SELECT setval('wg_knowledge_seq', 5 * 8192 + 7)`);
    await store.withLock(P, (g) => g.append(generate(200, 23, 800)));
    const gone = await deleteNodes(store, P, ['n5', 'n450', 'n900']);
    await catchUpPostings(db, P);
    const seqs = (await db.query<{ seq: string }>('SELECT seq::text AS seq FROM wg_knowledge_nodes ORDER BY seq')).map((r) => r.seq);
    const rand = prng(31);
    const word = () => WORDS[Math.floor(rand() * WORDS.length)]!;
    const shapes = [
      () => `${word()} ${word()}`,
      () => `${word()} -${word()}`,
      () => `${word()} OR ${word()} ${word()}`,
      () => `${word().slice(0, 2)}* -${word()}`,
      () => `${word()} -${word()} OR ${word()}`,
      () => `${word()} zyzzyva`,
      () => `${word()} -zyzzyva OR ${word()}`,
    ];
    for (let round = 0; round < 40; round++) {
      const query = parseSearchQuery(shapes[round % shapes.length]!());
      const watermark = rand() < 0.5 ? seqs[seqs.length - 1]! : seqs[Math.floor(rand() * seqs.length)]!;
      const params: unknown[] = [P];
      const tsq = tsqueryExpr(query, params);
      params.push(watermark);
      const [gin] = await db.query<{ n: string }>(
        `SELECT count(*)::text AS n FROM wg_knowledge_nodes n WHERE n.project = $1 AND n.search @@ (${tsq}) AND n.seq <= $${params.length}::bigint`,
        params,
      );
      expect({ query: query.text, watermark, n: await countByBits(db, P, query, watermark) }).toEqual({ query: query.text, watermark, n: Number(gin!.n) });
    }
    // A phrase has no count from the bits (they hold no positions).
    expect(await countByBits(db, P, parseSearchQuery('"alpha bravo"'), seqs[seqs.length - 1]!)).toBeUndefined();
  } finally {
    await db.close();
  }
}, 120_000);

it('the total: words, prefixes, OR and exclusions are counted from the term bitmaps up to the cap, with a filter through GIN up to the cap', async () => {
  const { db, store } = await freshStore({ searchTotalCap: 20 });
  try {
    await store.withLock(P, (g) => g.append(Array.from({ length: 30 }, (_, i) => ({ ...generate(1, i)[0]!, id: `t${i}`, thought: `tally ${i % 2 ? 'odd' : 'even'}`, tags: [] }))));
    const r = (query: string, extra: Partial<KnowledgeSearchQuery> = {}) => store.reader(P).search({ query: parseSearchQuery(query), limit: 5, ...extra });
    expect([(await r('tally')).total, (await r('tally')).totalExact]).toEqual([30, true]);
    // Words with exclusions are counted from the term bitmaps: up to the cap.
    const negated = await r('tally -nothing');
    expect([negated.total, negated.totalExact]).toEqual([20, false]);
    expect([(await r('tally -odd')).total, (await r('tally -odd')).totalExact]).toEqual([15, true]);
    expect(negated.hits).toHaveLength(5);
    // A filter needs the nodes: counted through GIN up to the cap.
    const filtered = await r('tally -nothing', { role: 'actor' });
    const actors = (await store.reader(P).page({ limit: 100, role: 'actor' })).nodes.length;
    expect([filtered.total, filtered.totalExact]).toEqual(actors > 20 ? [20, false] : [actors, true]);
    // Two terms: counted from the bitmaps too (under the cap: exact).
    expect([(await r('tally even')).total, (await r('tally even')).totalExact]).toEqual([15, true]);
    expect([(await r('tally -odd')).total, (await r('tally -odd')).totalExact]).toEqual([15, true]);
  } finally {
    await db.close();
  }
}, 120_000);
