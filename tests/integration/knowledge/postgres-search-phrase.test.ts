import { PgDatabase, type NamedStatement, type SqlRunner } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import { pgSearch } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search';
import { parseItemQuery } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search-phrase-count';
import type { KnowledgeSearchPage, KnowledgeSearchQuery } from '../../../src/modules/knowledge/application/ports/knowledge-store';
import type { KnowledgeRole } from '../../../src/modules/knowledge/domain';
import { parseSearchQuery } from '../../../src/modules/knowledge/domain';
import { catchUpPostings } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search-catch-up';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';
import { prng } from '../../helpers/prng';
import { deleteNodes, freshKnowledgeStore, generateNodes, type NodeText } from '../../helpers/pg-search-fixture';

/**
 * Phrases on a real PostgreSQL: the pair lists (migration 9) index the complete chunks of the rows already there and
 * follow every write (a chunk listed when the seqs pass its end; deletes, restores and updates in listed chunks); a
 * search with a phrase — its first page through the level walk, its total from the lists — answers exactly what
 * scoring every match answers: two- and three-word phrases, stopwords inside (a gap), exclusions, filters, deleted
 * nodes, next pages, across listed chunks and the newest one that is not.
 */

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const P = 'ph';
// `the` and `of` are stopwords: in a thought they leave gaps, so "alpha bravo" must not match "alpha the bravo".
const WORDS = 'alpha bravo charlie delta echo the foxtrot of golf hotel'.split(' ');
const CONTENT = WORDS.filter((w) => w !== 'the' && w !== 'of');
const ROLES: KnowledgeRole[] = ['actor', 'critic', 'summary'];
const TEXT: NodeText = { project: P, words: WORDS, minWords: 3, spanWords: 14, tags: CONTENT, tagRate: 0.4, artifactRate: 0.15 };
const generate = (count: number, seed: number, from = 0) => generateNodes(TEXT, count, seed, from);

/** The pair lists recomputed from the rows of the listed chunks, beside what the migration and the trigger kept. */
async function pairDrift(db: PgDatabase) {
  const [r] = await db.query<{ drift: string; rows: string; below: string | null; newest: string | null }>(`
    WITH p AS (SELECT n.project, n.seq, u.lexeme, x.pos FROM wg_knowledge_nodes n JOIN wg_knowledge_pair_chunks c
                 ON c.project = n.project AND n.seq / 8192 < c.below, unnest(n.search) u, unnest(u.positions) x(pos)),
         want AS (SELECT a.project, a.lexeme || ' ' || b.lexeme AS pair, a.seq / 8192 AS chunk, array_agg(DISTINCT (a.seq % 8192)::int ORDER BY (a.seq % 8192)::int) AS offs
                  FROM p a JOIN p b ON b.seq = a.seq AND b.pos = a.pos + 1 GROUP BY 1, 2, 3),
         kept AS (SELECT project, pair, chunk, ARRAY(SELECT DISTINCT e::int FROM unnest(seqs) e ORDER BY 1) AS offs
                  FROM wg_knowledge_pair_seqs WHERE cardinality(seqs) > 0)
    SELECT (SELECT count(*) FROM want w FULL JOIN kept k ON k.project = w.project AND k.pair = w.pair COLLATE "C" AND k.chunk = w.chunk
              WHERE w.offs IS DISTINCT FROM k.offs)::text AS drift,
      (SELECT count(*) FROM kept)::text AS rows,
      (SELECT below::text FROM wg_knowledge_pair_chunks WHERE project = '${P}') AS below,
      (SELECT (max(seq) / 8192)::text FROM wg_knowledge_nodes WHERE project = '${P}') AS newest`);
  return { drift: Number(r!.drift), rows: Number(r!.rows), below: r!.below, newest: r!.newest };
}

/** The statements a search ran (the real database behind). */
function recording(db: PgDatabase): { runner: SqlRunner; texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    runner: { query: (s: string | NamedStatement, p?: readonly unknown[]) => (texts.push(typeof s === 'string' ? s : s.text), db.query(s, p)) } as SqlRunner,
  };
}

type Q = Omit<KnowledgeSearchQuery, 'query'> & { query: string };
const page = (runner: SqlRunner, q: Q, strategy: 'auto' | 'score-every-match', cap = 10_000) =>
  pgSearch(runner, P, { ...q, query: parseSearchQuery(q.query) }, cap, strategy);
const view = (p: KnowledgeSearchPage) => ({ hits: p.hits.map((h) => [h.node.id, h.score, h.deleted]), more: p.nextCursor !== null, total: p.total, exact: p.totalExact });

/** The live matches of a query counted through GIN (the reference for capped totals). */
async function ginCount(db: PgDatabase, phrase: string): Promise<number> {
  const [r] = await db.query<{ n: string }>(
    `SELECT count(*)::text AS n FROM wg_knowledge_nodes WHERE project = $1 AND search @@ websearch_to_tsquery('english', $2)`,
    [P, phrase],
  );
  return Number(r!.n);
}

/** Rows in chunk 0, across the end of chunk 0, across the end of chunk 1, and in chunk 2 (the newest: not listed). */
async function populate(store: Awaited<ReturnType<typeof freshKnowledgeStore>>['store'], db: PgDatabase, seed: number, settle = true) {
  await store.withLock(P, (g) => g.append(generate(700, seed)));
  await db.query(`SELECT setval('wg_knowledge_seq', 8192 - 250)`);
  await store.withLock(P, (g) => g.append(generate(600, seed + 1, 700)));
  await db.query(`SELECT setval('wg_knowledge_seq', 2 * 8192 - 300)`);
  await store.withLock(P, (g) => g.append(generate(500, seed + 2, 1300)));
  await store.withLock(P, (g) => g.append(generate(400, seed + 3, 1800)));
  // (What a search does before it reads: the rows' vectors and postings — ginCount reads the vectors.)
  if (settle) await catchUpPostings(db, P);
}

it('parses websearch_to_tsquery phrases into adjacent pairs and leaves gaps and other forms to GIN', () => {
  expect(parseItemQuery(`'retri'`)).toEqual({ kind: 'term', term: 'retri' });
  expect(parseItemQuery(`'retri' <-> 'backoff'`)).toEqual({ kind: 'pairs', pairs: ['retri backoff'] });
  expect(parseItemQuery(`'a' <-> 'b' <-> 'a'`)).toEqual({ kind: 'pairs', pairs: ['a b', 'b a'] });
  for (const other of [`'a' <2> 'b'`, `'a' & 'b'`, `'a' <-> 'b' & 'c'`, `'a' <-> `, ``, `'it''s' <-> 'b'`, `!'a'`]) expect(parseItemQuery(other)).toBeUndefined();
});

it('migration 9 lists the complete chunks already there; a build lists the chunks the seqs passed; the trigger follows deletes, restores and updates', async () => {
  const { db, store } = await freshKnowledgeStore(pg, { migrations: knowledgeMigrations.filter((m) => m.version < 9) });
  try {
    await populate(store, db, 1, false);
    await migrate(db, knowledgeMigrations);
    const migrated = await pairDrift(db);
    expect(migrated).toEqual({ drift: 0, rows: expect.any(Number), below: '2', newest: '2' });
    expect(migrated.rows).toBeGreaterThan(100);

    // Deletes, a restore and updates in listed chunks (0 and 1) and in the newest one.
    const gone = await deleteNodes(store, P, ['n3', 'n710', 'n1250', 'n1310', 'n1900']);
    await store.withLock(P, (g) => g.restore([gone[0]!, gone[2]!]));
    await store.withLock(P, (g) => g.updateNodes(new Set(['n20', 'n800', 'n1850']), (n) => ({ ...n, thought: 'alpha bravo alpha bravo the charlie' })));
    await store.withLock(P, (g) => g.updateNodes(new Set(['n21']), (n) => ({ ...n, thought: 'golf' })));
    expect(await pairDrift(db)).toEqual({ drift: 0, rows: expect.any(Number), below: '2', newest: '2' });

    // Seqs past chunk 2's end: writes list nothing; a phrase search lists chunk 2 (its updates and restores included).
    await db.query(`SELECT setval('wg_knowledge_seq', 3 * 8192 + 10)`);
    await store.withLock(P, (g) => g.append(generate(50, 9, 2200)));
    expect(await pairDrift(db)).toEqual({ drift: 0, rows: expect.any(Number), below: '2', newest: '3' });
    await page(db, { query: '"alpha bravo"', limit: 5 }, 'auto');
    expect(await pairDrift(db)).toEqual({ drift: 0, rows: expect.any(Number), below: '3', newest: '3' });
    await deleteNodes(store, P, ['n1820', 'n2210']);
    expect((await pairDrift(db)).drift).toBe(0);
  } finally {
    await db.close();
  }
}, 120_000);

it('phrase queries answer exactly what scoring every match answers: pages, next pages, totals (randomized)', async () => {
  const { db, store } = await freshKnowledgeStore(pg);
  try {
    await populate(store, db, 21);
    await deleteNodes(store, P, Array.from({ length: 40 }, (_, i) => `n${i * 53}`));
    const rand = prng(17);
    const word = () => CONTENT[Math.floor(rand() * rand() * CONTENT.length)]!;
    let listed = 0;
    let walked = 0;
    for (let round = 0; round < 48; round++) {
      const kind = round % 6;
      // Two words, three words, a stopword inside (a gap: GIN decides), a repeated word.
      const phrase = kind === 4 ? `"${word()} the ${word()}"` : kind === 5 ? `"${word()} ${word()} ${word()}"` : kind === 3 ? `"${word()} ${word()}"` : `"${word()} ${word()}"`;
      const extra = rand() < 0.3 ? ` ${word()}` : '';
      const not = rand() < 0.3 ? (rand() < 0.5 ? ` -${word()}` : ` -"${word()} ${word()}"`) : '';
      const q: Q = {
        query: `${phrase}${extra}${not}`,
        limit: 1 + Math.floor(rand() * 25),
        ...(rand() < 0.15 ? { role: ROLES[Math.floor(rand() * 3)] } : {}),
        ...(rand() < 0.2 ? { includeDeleted: true } : {}),
      };
      const rec = recording(db);
      const auto = await page(rec.runner, q, 'auto');
      const every = await page(db, q, 'score-every-match');
      expect({ q, page: view(auto) }).toEqual({ q, page: view(every) });
      if (rec.texts.some((t) => t.includes('wg_knowledge_pair_seqs'))) listed++;
      if (rec.texts.some((t) => t.includes('wg_knowledge_level_bits'))) walked++;
      let [a, e] = [auto.nextCursor, every.nextCursor];
      for (let k = 0; k < 2 && a && e; k++) {
        const next = (strategy: 'auto' | 'score-every-match', cursor: string) => pgSearch(db, P, { ...q, query: parseSearchQuery(q.query), cursor }, 10_000, strategy);
        const [na, ne] = [await next('auto', a), await next('score-every-match', e)];
        expect({ q, k, page: view(na) }).toEqual({ q, k, page: view(ne) });
        [a, e] = [na.nextCursor, ne.nextCursor];
      }
    }
    expect(listed).toBeGreaterThanOrEqual(20);
    expect(walked).toBeGreaterThanOrEqual(20);
  } finally {
    await db.close();
  }
}, 300_000);

it('phrase totals from the lists and the newest chunk follow the cap: exact up to it, the cap and totalExact false past it', async () => {
  const { db, store } = await freshKnowledgeStore(pg);
  try {
    await populate(store, db, 31);
    for (const phrase of ['"alpha bravo"', '"bravo alpha"', '"alpha alpha"', '"alpha bravo charlie"', '"charlie the alpha"']) {
      const n = await ginCount(db, phrase);
      expect(n).toBeGreaterThan(3);
      for (const cap of [n - 1, n, n + 5, 2]) {
        const p = await page(db, { query: phrase, limit: 3 }, 'auto', cap);
        expect({ phrase, cap, total: [p.total, p.totalExact] }).toEqual({ phrase, cap, total: n > cap ? [cap, false] : [n, true] });
      }
    }
    // Chunks the seqs passed while a writer holds the project's lock: no build (it would wait), counted through GIN.
    await db.query(`SELECT setval('wg_knowledge_seq', 4 * 8192)`);
    await store.withLock(P, (g) => g.append(generate(30, 41, 5000)));
    // (Their postings first, as any search posts them: migration 14. A search under the lock would wait for it.)
    await catchUpPostings(db, P);
    const n = await ginCount(db, '"alpha bravo"');
    const during = await store.withLock(P, () => page(db, { query: '"alpha bravo"', limit: 3 }, 'auto'));
    expect([during.total, during.totalExact, (await pairDrift(db)).below]).toEqual([n, true, '2']);
    // One chunk listed per search (migration 11), the chunks still due counted through GIN: exact all along.
    const after = await page(db, { query: '"alpha bravo"', limit: 3 }, 'auto');
    expect([after.total, after.totalExact, await pairDrift(db)]).toEqual([n, true, { drift: 0, rows: expect.any(Number), below: '3', newest: '4' }]);
    const next = await page(db, { query: '"alpha bravo"', limit: 3 }, 'auto');
    expect([next.total, next.totalExact, await pairDrift(db)]).toEqual([n, true, { drift: 0, rows: expect.any(Number), below: '4', newest: '4' }]);
  } finally {
    await db.close();
  }
}, 120_000);
