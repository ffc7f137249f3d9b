import { PgDatabase, type NamedStatement, type SqlRunner } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import { pgSearch } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search';
import type { KnowledgeSearchPage, KnowledgeSearchQuery } from '../../../src/modules/knowledge/application/ports/knowledge-store';
import type { KnowledgeRole } from '../../../src/modules/knowledge/domain';
import { parseSearchQuery } from '../../../src/modules/knowledge/domain';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';
import { prng } from '../../helpers/prng';
import { deleteNodes, freshKnowledgeStore, generateNodes, type NodeText } from '../../helpers/pg-search-fixture';

/**
 * The impact levels (migration 7) on a real PostgreSQL: they index the rows already there and follow every write; a
 * search of several words found through them (the level walk) answers exactly what scoring every match answers, on
 * text whose impacts fall on the levels and between them (tags, artifacts, many repeats).
 */

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const P = 'lv';
const WORDS = 'alpha bravo charlie delta echo foxtrot golf hotel'.split(' ');
const ROLES: KnowledgeRole[] = ['actor', 'critic', 'summary'];

const TEXT: NodeText = { project: P, words: WORDS, minWords: 4, spanWords: 27, tags: WORDS, tagRate: 0.4, artifactRate: 0.15 };
// 4 to 30 words of a small vocabulary: up to a dozen repeats of a word (every level and past the last one); words in
// tags and artifacts too: impacts between the levels.
const generate = (count: number, seed: number, from = 0) => generateNodes(TEXT, count, seed, from);

const freshStore = (migrations = knowledgeMigrations) => freshKnowledgeStore(pg, { migrations });

/** The level tables recomputed from the postings, beside what the trigger kept. */
async function levelDrift(db: PgDatabase) {
  const [r] = await db.query<{ bits: string; docs: string; low: string; rows: string }>(`
    WITH want AS (SELECT p.project, p.term, l AS level, p.seq / 8192 AS chunk, bit_or(wg_knowledge_bit(p.seq)) AS bits
                  FROM wg_knowledge_postings p, generate_series(1, wg_knowledge_level(p.impact)) l GROUP BY 1, 2, 3, 4),
         lv AS (SELECT project, term, wg_knowledge_level(impact) AS level, count(*) AS docs, max(impact) AS top FROM wg_knowledge_postings GROUP BY 1, 2, 3)
    SELECT (SELECT count(*) FROM want w FULL JOIN (SELECT * FROM wg_knowledge_level_bits WHERE bit_count(bits) > 0) b
              USING (project, term, level, chunk) WHERE w.bits IS DISTINCT FROM b.bits)::text AS bits,
      (SELECT count(*) FROM lv FULL JOIN (SELECT * FROM wg_knowledge_term_levels WHERE docs > 0) t USING (project, term, level)
         WHERE lv.docs IS DISTINCT FROM t.docs)::text AS docs,
      (SELECT count(*) FROM lv JOIN wg_knowledge_term_levels t USING (project, term, level) WHERE t.max_impact < lv.top)::text AS low,
      (SELECT count(*) FROM wg_knowledge_level_bits)::text AS rows`);
  return { bits: Number(r!.bits), docs: Number(r!.docs), low: Number(r!.low), rows: Number(r!.rows) };
}

/** The statements a search ran (the real database behind). */
function recording(db: PgDatabase): { runner: SqlRunner; texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    runner: { query: (s: string | NamedStatement, p?: readonly unknown[]) => (texts.push(typeof s === 'string' ? s : s.text), db.query(s, p)) } as SqlRunner,
  };
}

async function page(runner: SqlRunner, q: Omit<KnowledgeSearchQuery, 'query'> & { query: string }, strategy: 'auto' | 'score-every-match') {
  return pgSearch(runner, P, { ...q, query: parseSearchQuery(q.query) }, 10_000, strategy);
}
const view = (p: KnowledgeSearchPage) => ({ hits: p.hits.map((h) => [h.node.id, h.score, h.deleted]), more: p.nextCursor !== null, total: p.total });

it('migration 7 indexes the rows already there; the trigger follows adds, deletes, restores and updates', async () => {
  const { db, store } = await freshStore(knowledgeMigrations.filter((m) => m.version < 7));
  try {
    await store.withLock(P, (g) => g.append(generate(400, 1)));
    await db.query(`SELECT setval('wg_knowledge_seq', 2 * 8192 - 30)`); // the next ones straddle a chunk's end
    await store.withLock(P, (g) => g.append(generate(100, 2, 400)));
    await migrate(db, knowledgeMigrations);
    const migrated = await levelDrift(db);
    expect(migrated).toEqual({ bits: 0, docs: 0, low: 0, rows: expect.any(Number) });
    expect(migrated.rows).toBeGreaterThan(8);

    await store.withLock(P, (g) => g.append(generate(200, 3, 500)));
    const gone = await deleteNodes(store, P, ['n3', 'n410', 'n420', 'n600']);
    await store.withLock(P, (g) => g.restore([gone[1]!]));
    await store.withLock(P, (g) => g.updateNodes(new Set(['n20', 'n450']), (n) => ({ ...n, thought: 'alpha alpha alpha alpha alpha alpha bravo' })));
    await store.withLock(P, (g) => g.updateNodes(new Set(['n21']), (n) => ({ ...n, thought: 'golf' })));
    expect(await levelDrift(db)).toEqual({ bits: 0, docs: 0, low: 0, rows: expect.any(Number) });
  } finally {
    await db.close();
  }
}, 120_000);

it('several words through the levels answer exactly what scoring every match answers (randomized)', async () => {
  const { db, store } = await freshStore();
  try {
    const nodes = generate(3000, 7);
    for (let i = 0; i < nodes.length; i += 500) await store.withLock(P, (g) => g.append(nodes.slice(i, i + 500)));
    const gone = await deleteNodes(store, P, nodes.filter((_, i) => i % 89 === 0).map((n) => n.id));
    const rand = prng(13);
    const word = () => WORDS[Math.floor(rand() * WORDS.length)]!;
    let walked = 0;
    for (let round = 0; round < 40; round++) {
      const ws = Array.from({ length: 2 + (round % 3) }, word);
      const query = round % 4 === 3 ? `${ws.join(' ')} -${word()}` : ws.join(' ');
      const q = {
        query,
        limit: 1 + Math.floor(rand() * 30),
        ...(rand() < 0.2 ? { role: ROLES[Math.floor(rand() * 3)] } : {}),
        ...(rand() < 0.2 ? { includeDeleted: true } : {}),
      };
      const rec = recording(db);
      const auto = await page(rec.runner, q, 'auto');
      const every = await page(db, q, 'score-every-match');
      expect({ q, page: view(auto) }).toEqual({ q, page: view(every) });
      if (rec.texts.some((t) => t.includes('wg_knowledge_level_bits'))) walked++;
      // The next page (scored the usual way after a cursor) continues where the walk stopped.
      if (auto.nextCursor) {
        const next = (strategy: 'auto' | 'score-every-match', cursor: string) => pgSearch(db, P, { ...q, query: parseSearchQuery(q.query), cursor }, 10_000, strategy);
        expect(view(await next('auto', auto.nextCursor))).toEqual(view(await next('score-every-match', every.nextCursor!)));
      }
    }
    expect(walked).toBeGreaterThanOrEqual(25);
  } finally {
    await db.close();
  }
}, 300_000);

it('totals from the term bitmaps: the newest chunks first, the older ones only while the cap is not reached', async () => {
  const { db, store } = await freshStore();
  try {
    const tally = (from: number, n: number, word: string) =>
      generate(n, from).map((x, i) => ({ ...x, id: `t${from + i}`, thought: `tally ${word} ${i % 3 ? 'odd' : 'even'}`, tags: [], artifacts: [] }));
    await store.withLock(P, (g) => g.append(tally(0, 30, 'old')));
    await db.query(`SELECT setval('wg_knowledge_seq', 2 * 8192 + 5)`); // two chunks further on
    await store.withLock(P, (g) => g.append(tally(100, 30, 'new')));
    const total = async (query: string, cap: number) => {
      const p = await pgSearch(db, P, { query: parseSearchQuery(query), limit: 3 }, cap);
      return [p.total, p.totalExact];
    };
    // Every node matches (density 1): the newest chunk alone is counted first.
    expect(await total('tally -nothing', 100)).toEqual([60, true]);
    expect(await total('tally -nothing', 45)).toEqual([45, false]); // 30 in the newest, the cap reached with the older
    expect(await total('tally -nothing', 20)).toEqual([20, false]); // past the cap in the newest chunk alone
    expect(await total('tally even', 100)).toEqual([20, true]);
    expect(await total('tally odd -new', 100)).toEqual([20, true]);
    expect(await total('tally OR zyzzyva -old', 25)).toEqual([25, false]);
    expect(await total('tally OR zyzzyva -old', 30)).toEqual([30, true]);
  } finally {
    await db.close();
  }
}, 120_000);
