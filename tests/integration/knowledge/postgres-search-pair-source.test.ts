import type { NamedStatement, PgDatabase, SqlRunner } from '../../../src/kernel/postgres/pg-database';
import { holding, pairRefresh, pairSeqs, pairTsquery } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search-pair-source';
import { PairListSource } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search-pair-list-source';
import { phrasePlanOf, planPhrases, takeHolding } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search-phrase-plan';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';
import { prng } from '../../helpers/prng';
import { catchUpPostings } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search-catch-up';
import { deleteNodes, freshKnowledgeStore, generateNodes, type NodeText } from '../../helpers/pg-search-fixture';

/**
 * The pair source on a real PostgreSQL: a pair's seqs from the pair lists (listed chunks), through GIN (the newest
 * chunk; chunks not built yet while a writer holds the lock) and built on the way (chunks the seqs passed) equal
 * exactly what `search @@ 'a' <-> 'b'` matches, at watermarks inside and at the ends of chunks, after deletes,
 * updates and restores; a refresh from changed seqs and a watermark brings an old list to the new one; a longer
 * phrase's AND of pairs checked by takeHolding equals its tsquery. Corrupting one list (an offset off by one) or the
 * listed-chunk bound makes the comparison fail.
 */

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const P = 'pp';
const WORDS = 'alpha bravo charlie delta echo the foxtrot of golf hotel'.split(' ');
const CONTENT = WORDS.filter((w) => w !== 'the' && w !== 'of');
const TEXT: NodeText = { project: P, words: WORDS, minWords: 3, spanWords: 14, tags: CONTENT, tagRate: 0.4, artifactRate: 0.15 };
const generate = (count: number, seed: number, from = 0) => generateNodes(TEXT, count, seed, from);

/** Rows in chunk 0, across the ends of chunks 0 and 1, and in chunk 2 (the newest). */
async function populate(store: Awaited<ReturnType<typeof freshKnowledgeStore>>['store'], db: PgDatabase, seed: number) {
  await store.withLock(P, (g) => g.append(generate(500, seed)));
  await db.query(`SELECT setval('wg_knowledge_seq', 8192 - 200)`);
  await store.withLock(P, (g) => g.append(generate(500, seed + 1, 500)));
  await db.query(`SELECT setval('wg_knowledge_seq', 2 * 8192 - 250)`);
  await store.withLock(P, (g) => g.append(generate(600, seed + 2, 1000)));
  await settle(db);
}

/** What a search does before it reads: the rows' vectors and postings (migrations 14, 15: appends leave them). */
const settle = (db: PgDatabase) => catchUpPostings(db, P);

/** What `search @@ tsquery` matches up to upTo, ascending (the reference). */
async function reference(db: SqlRunner, tsquery: string, upTo: number): Promise<number[]> {
  const rows = await db.query<{ seq: string }>(
    `SELECT n.seq::text AS seq FROM wg_knowledge_nodes n WHERE n.project = $1 AND n.seq <= $2::bigint AND n.search @@ $3::tsquery ORDER BY n.seq`,
    [P, String(upTo), tsquery],
  );
  return rows.map((r) => Number(r.seq));
}

/** The pairs of the vocabulary as the lists key them (stems), through the phrase plan. */
async function allPairs(db: SqlRunner): Promise<string[]> {
  const phrases = CONTENT.flatMap((a) => CONTENT.map((b) => [a, b]));
  return (await planPhrases(db, phrases)).map((p) => p!.pairs[0]!);
}

function recording(db: PgDatabase): { runner: SqlRunner; texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    runner: { query: (s: string | NamedStatement, p?: readonly unknown[]) => (texts.push(typeof s === 'string' ? s : s.text), db.query(s, p)) } as SqlRunner,
  };
}

/** A list without `changed`, with `entries` merged in (what the cache does with a refresh). */
const merge = (list: Int32Array, changed: Int32Array, entries: Int32Array) => ({
  seqs: Int32Array.from(new Set([...Array.from(list).filter((s) => !changed.includes(s)), ...Array.from(entries)])).sort(),
});

const maxSeq = async (db: SqlRunner) => Number((await db.query<{ m: string }>(`SELECT max(seq)::text AS m FROM wg_knowledge_nodes WHERE project = $1`, [P]))[0]!.m);

/** Every pair at these watermarks: the source equals the reference. */
async function expectSourceExact(db: SqlRunner, pairs: readonly string[], marks: readonly number[]) {
  for (const upTo of marks) {
    for (const pair of pairs) {
      const got = Array.from(await pairSeqs(db, P, pair, upTo));
      expect({ pair, upTo, got }).toEqual({ pair, upTo, got: await reference(db, pairTsquery(pair), upTo) });
    }
  }
}

it('plans phrases: one pair exact, longer phrases the AND of their pairs, gaps none; pair tsqueries quote their lexemes', async () => {
  expect(phrasePlanOf(`'retri' <-> 'backoff'`)).toEqual({ tsquery: `'retri' <-> 'backoff'`, lexemes: ['retri', 'backoff'], pairs: ['retri backoff'], exact: true });
  expect(phrasePlanOf(`'a' <-> 'b' <-> 'a' <-> 'b'`)).toEqual({ tsquery: `'a' <-> 'b' <-> 'a' <-> 'b'`, lexemes: ['a', 'b', 'a', 'b'], pairs: ['a b', 'b a'], exact: false });
  expect(phrasePlanOf(`'retri'`)).toEqual({ tsquery: `'retri'`, lexemes: ['retri'], pairs: [], exact: true });
  for (const gap of [`'a' <2> 'b'`, `'a' & 'b'`, ``]) expect(phrasePlanOf(gap)).toBeUndefined();
  expect(pairTsquery(`it's a\\b`)).toBe(`'it''s' <-> 'a\\\\b'`);
  expect(() => pairTsquery('one')).toThrow(/^pair: expected two lexemes/);
  const { db } = await freshKnowledgeStore(pg);
  try {
    const plans = await planPhrases(db, [['retry', 'backoff'], ['retry', 'the', 'backoff'], ['the', 'cache', 'budget', 'of'], ['of', 'the']]);
    expect(plans.map((p) => p && p.pairs)).toEqual([['retri backoff'], undefined, ['cach budget'], undefined]);
    // The quoted form is a tsquery PostgreSQL reads back as the same lexemes.
    const [r] = await db.query<{ q: string }>(`SELECT $1::tsquery::text AS q`, [pairTsquery(`it's a\\b`)]);
    expect(r!.q).toBe(pairTsquery(`it's a\\b`));
  } finally {
    await db.close();
  }
}, 60_000);

it('a pair source equals search @@ a <-> b: unbuilt, built and newest chunks, watermarks at chunk ends, after deletes, updates and restores', async () => {
  const { db, store } = await freshKnowledgeStore(pg);
  try {
    await populate(store, db, 3);
    const pairs = await allPairs(db);
    const top = await maxSeq(db);
    const marks = [5, 400, 8191, 8192, 8192 + 100, 2 * 8192 - 1, 2 * 8192, top];

    // Chunks 0 and 1 not built, a writer holding the lock: no build, all through GIN.
    const held = recording(db);
    await store.withLock(P, () => expectSourceExact(held.runner, pairs.slice(0, 12), [top]));
    expect((await db.query(`SELECT 1 FROM wg_knowledge_pair_seqs LIMIT 1`)).length).toBe(0);

    // The first reads past them build them, one chunk a read (migration 11); the rest read the lists (one statement each).
    const rec = recording(db);
    await expectSourceExact(rec.runner, pairs, marks);
    expect(rec.texts.filter((t) => t.includes('wg_knowledge_pairs_build')).length).toBe(2);
    expect(Number((await db.query<{ b: string }>(`SELECT below::text AS b FROM wg_knowledge_pair_chunks WHERE project = $1`, [P]))[0]!.b)).toBe(2);

    // Deletes, a restore (a new seq, the newest chunk), updates in listed chunks and the newest.
    const gone = await deleteNodes(store, P, ['n3', 'n450', 'n700', 'n990', 'n1200']);
    await store.withLock(P, (g) => g.restore([gone[0]!, gone[3]!]));
    await store.withLock(P, (g) => g.updateNodes(new Set(['n20', 'n600', 'n1100']), (n) => ({ ...n, thought: 'alpha bravo alpha bravo the charlie delta' })));
    await store.withLock(P, (g) => g.updateNodes(new Set(['n21', 'n601']), (n) => ({ ...n, thought: 'golf', tags: [] })));
    await settle(db);
    await expectSourceExact(db, pairs, [8191, 2 * 8192 - 1, await maxSeq(db)]);

    // The seqs pass chunk 2's end: the next read lists chunk 2 and still answers exactly.
    await db.query(`SELECT setval('wg_knowledge_seq', 3 * 8192 + 5)`);
    await store.withLock(P, (g) => g.append(generate(40, 9, 2000)));
    await settle(db);
    await expectSourceExact(db, pairs, [3 * 8192 - 1, await maxSeq(db)]);
    expect(Number((await db.query<{ b: string }>(`SELECT below::text AS b FROM wg_knowledge_pair_chunks WHERE project = $1`, [P]))[0]!.b)).toBe(3);
  } finally {
    await db.close();
  }
}, 180_000);

it('many chunks not listed (a writer holding the lock): read through GIN, equal too; then built and read from the lists', async () => {
  const { db, store } = await freshKnowledgeStore(pg);
  try {
    await populate(store, db, 51);
    await db.query(`SELECT setval('wg_knowledge_seq', 5 * 8192 + 10)`);
    await store.withLock(P, (g) => g.append(generate(80, 52, 3000)));
    await settle(db);
    const pairs = await allPairs(db);
    const top = await maxSeq(db);
    await store.withLock(P, () => expectSourceExact(db, pairs, [3 * 8192 + 1, top]));
    await expectSourceExact(db, pairs, [top, 8191]);
    expect(Number((await db.query<{ b: string }>(`SELECT below::text AS b FROM wg_knowledge_pair_chunks WHERE project = $1`, [P]))[0]!.b)).toBe(5);
  } finally {
    await db.close();
  }
}, 120_000);

it('a refresh (changed seqs, seqs above the old watermark) brings an old list to the new one (randomized)', async () => {
  const { db, store } = await freshKnowledgeStore(pg);
  try {
    await populate(store, db, 11);
    const pairs = await allPairs(db);
    const rand = prng(5);
    for (let round = 0; round < 4; round++) {
      const w = await maxSeq(db);
      const before = new Map<string, Int32Array>();
      for (const pair of pairs) before.set(pair, await pairSeqs(db, P, pair, w));
      // Seqs that change: deleted, updated in place (restored ones come back with new seqs, above w).
      const ids = await db.query<{ id: string; seq: string }>(`SELECT id, seq::text AS seq FROM wg_knowledge_nodes WHERE project = $1 ORDER BY random() LIMIT 30`, [P]);
      const [dels, upds] = [ids.slice(0, 12), ids.slice(12)];
      const gone = await deleteNodes(store, P, dels.map((r) => r.id));
      await store.withLock(P, (g) => g.restore(gone.filter(() => rand() < 0.5)));
      const thought = () => Array.from({ length: 4 + Math.floor(rand() * 8) }, () => CONTENT[Math.floor(rand() * CONTENT.length)]).join(' ');
      await store.withLock(P, (g) => g.updateNodes(new Set(upds.map((r) => r.id)), (n) => ({ ...n, thought: thought() })));
      if (round === 2) await db.query(`SELECT setval('wg_knowledge_seq', 3 * 8192 + 1)`);
      await store.withLock(P, (g) => g.append(generate(60, 100 + round, 3000 + round * 100)));
      await settle(db);
      const changed = ids.map((r) => Number(r.seq));
      const upTo = await maxSeq(db);
      const refreshed = await pairRefresh(db, P, pairs, changed, w, upTo);
      expect([...refreshed.keys()]).toEqual(pairs);
      for (const pair of pairs) {
        const gone = new Set(changed);
        const kept = Array.from(before.get(pair)!).filter((s) => !gone.has(s));
        const fresh = Array.from(refreshed.get(pair)!);
        const merged = [...kept, ...fresh].sort((a, b) => a - b);
        expect({ round, pair, merged }).toEqual({ round, pair, merged: await reference(db, pairTsquery(pair), upTo) });
      }
    }
  } finally {
    await db.close();
  }
}, 240_000);

it('a longer phrase: the AND of its pairs checked in score order by takeHolding equals its tsquery', async () => {
  const { db, store } = await freshKnowledgeStore(pg);
  try {
    await populate(store, db, 21);
    const rand = prng(9);
    const word = () => CONTENT[Math.floor(rand() * rand() * CONTENT.length)]!;
    let superset = 0;
    for (let round = 0; round < 24; round++) {
      const words = Array.from({ length: 3 + (round % 2) }, word);
      const [plan] = await planPhrases(db, [words]);
      const upTo = await maxSeq(db);
      const lists = await Promise.all(plan!.pairs.map((pair) => pairSeqs(db, P, pair, upTo)));
      const rest = lists.slice(1).map((l) => new Set(l));
      // A score order of its own: shuffled.
      const candidates = Array.from(lists[0]!).filter((s) => rest.every((r) => r.has(s)));
      for (let i = candidates.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [candidates[i], candidates[j]] = [candidates[j]!, candidates[i]!];
      }
      const want = await reference(db, plan!.tsquery, upTo);
      if (candidates.length > want.length) superset++;
      const inOrder = candidates.filter((s) => want.includes(s));
      for (const limit of [1, 7, 10_000]) {
        const { holders, checked } = await takeHolding(db, P, plan!, candidates, limit, upTo);
        expect({ words, limit, holders }).toEqual({ words, limit, holders: inOrder.slice(0, limit) });
        expect(checked).toBeLessThanOrEqual(candidates.length);
      }
      expect(Array.from(await holding(db, P, plan!.tsquery, candidates, upTo))).toEqual(want);
    }
    expect(superset).toBeGreaterThan(5);
  } finally {
    await db.close();
  }
}, 180_000);

it('the comparison catches a corrupt source: one offset off by one, or a listed-chunk bound past the lists', async () => {
  const { db, store } = await freshKnowledgeStore(pg);
  try {
    await populate(store, db, 31);
    const pairs = await allPairs(db);
    const top = await maxSeq(db);
    await expectSourceExact(db, pairs, [top]);
    const [row] = await db.query<{ pair: string; chunk: string }>(
      `SELECT pair, chunk::text AS chunk FROM wg_knowledge_pair_seqs WHERE project = $1 AND chunk = 1 AND cardinality(seqs) > 3 ORDER BY pair LIMIT 1`,
      [P],
    );
    await db.query(`UPDATE wg_knowledge_pair_seqs SET seqs = ARRAY(SELECT e + 1 FROM unnest(seqs) e ORDER BY e) WHERE project = $1 AND pair = $2 AND chunk = $3`, [P, row!.pair, row!.chunk]);
    await expect(expectSourceExact(db, [row!.pair], [top])).rejects.toThrow();
    await db.query(`UPDATE wg_knowledge_pair_seqs SET seqs = ARRAY(SELECT e - 1 FROM unnest(seqs) e ORDER BY e) WHERE project = $1 AND pair = $2 AND chunk = $3`, [P, row!.pair, row!.chunk]);
    await expectSourceExact(db, [row!.pair], [top]);
    // A bound that claims the newest chunk is listed: its rows would be read from lists it has none in.
    await db.query(`UPDATE wg_knowledge_pair_chunks SET below = below + 1 WHERE project = $1`, [P]);
    await expect(expectSourceExact(db, pairs.slice(0, 4), [top])).rejects.toThrow();
  } finally {
    await db.close();
  }
}, 120_000);

it('the cache\'s pair source in a REPEATABLE READ sync: chunks due a build read through GIN, one build started on the pool, later loads from the lists; refreshes merge to the new lists', async () => {
  const { db, store } = await freshKnowledgeStore(pg);
  try {
    await populate(store, db, 41);
    const pairs = await allPairs(db);
    const source = new PairListSource(db);
    const below = async () => (await db.query<{ b: string }>(`SELECT below::text AS b FROM wg_knowledge_pair_chunks WHERE project = $1`, [P]))[0]?.b ?? null;
    const sync = <T>(fn: (tx: SqlRunner) => Promise<T>) => db.transaction(fn, 'repeatable read');
    const expectLists = async (got: Map<string, { seqs: Int32Array; impacts?: Float32Array }>, upTo: number) => {
      expect([...got.keys()]).toEqual(pairs);
      for (const pair of pairs) expect({ pair, seqs: Array.from(got.get(pair)!.seqs), scored: got.get(pair)!.impacts !== undefined }).toEqual({ pair, seqs: await reference(db, pairTsquery(pair), upTo), scored: false });
    };
    let upTo = await maxSeq(db);
    // A write committed after the sync's snapshot: a build inside it would fail to lock the project's row.
    const first = await sync(async (tx) => {
      await tx.query('SELECT 1 FROM wg_knowledge_nodes LIMIT 1');
      await store.withLock(P, (g) => g.append(generate(5, 77, 4000)));
      return source.load(tx, P, pairs, upTo);
    });
    await expectLists(first, upTo);
    // (What building there would do: the row lock of a project written since the snapshot fails.)
    await expect(
      sync(async (tx) => {
        await tx.query('SELECT 1 FROM wg_knowledge_nodes LIMIT 1');
        await store.withLock(P, (g) => g.updateNodes(new Set(['n1']), (n) => ({ ...n, thought: 'golf hotel' })));
        await tx.query(`SELECT wg_knowledge_pairs_build($1)`, [P]);
      }),
    ).rejects.toThrow(/serialize/);
    await source.settled();
    expect(await below()).toBe('2');
    // Built a chunk per transaction: the lists of chunks 0 and 1 are those the rows hold.
    const [drift] = await db.query<{ n: string; rows: string }>(`
      WITH p AS (SELECT n.seq, u.lexeme, x.pos FROM wg_knowledge_nodes n, unnest(n.search) u, unnest(u.positions) x(pos) WHERE n.project = $1 AND n.seq < 2 * 8192),
           want AS (SELECT a.lexeme || ' ' || b.lexeme AS pair, a.seq / 8192 AS chunk, array_agg(DISTINCT (a.seq % 8192)::int ORDER BY (a.seq % 8192)::int) AS offs
                    FROM p a JOIN p b ON b.seq = a.seq AND b.pos = a.pos + 1 GROUP BY 1, 2),
           kept AS (SELECT pair, chunk, ARRAY(SELECT e::int FROM unnest(seqs) e) AS offs FROM wg_knowledge_pair_seqs WHERE project = $1 AND cardinality(seqs) > 0)
      SELECT (SELECT count(*) FROM want w FULL JOIN kept k ON k.pair = w.pair COLLATE "C" AND k.chunk = w.chunk WHERE w.offs IS DISTINCT FROM k.offs)::text AS n,
        (SELECT count(*) FROM kept)::text AS rows`, [P]);
    expect(Number(drift!.n)).toBe(0);
    expect(Number(drift!.rows)).toBeGreaterThan(50);
    const listed = await sync((tx) => source.load(tx, P, pairs, upTo));
    await expectLists(listed, upTo);

    // Deletes, updates and appends; a refresh of the old lists brings them to the new ones.
    const ids = await db.query<{ id: string; seq: string }>(`SELECT id, seq::text AS seq FROM wg_knowledge_nodes WHERE project = $1 ORDER BY seq LIMIT 40 OFFSET 700`, [P]);
    await deleteNodes(store, P, ids.slice(0, 20).map((r) => r.id));
    await store.withLock(P, (g) => g.updateNodes(new Set(ids.slice(20).map((r) => r.id)), (n) => ({ ...n, thought: 'bravo alpha charlie alpha bravo' })));
    await store.withLock(P, (g) => g.append(generate(30, 78, 4100)));
    await settle(db);
    const changed = Int32Array.from(ids.map((r) => Number(r.seq))).sort();
    const after = upTo;
    upTo = await maxSeq(db);
    const entries = await sync((tx) => source.refresh(tx, P, pairs, changed, after, upTo));
    await expectLists(new Map(pairs.map((pair) => [pair, merge(listed.get(pair)!.seqs, changed, entries.get(pair)!.seqs)])), upTo);
  } finally {
    await db.close();
  }
}, 120_000);
