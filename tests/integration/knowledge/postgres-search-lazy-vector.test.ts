import { PgDatabase } from '../../../src/kernel/postgres/pg-database';
import { migrate } from '../../../src/kernel/postgres/migrations';
import { knowledgeMigrations } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-migrations';
import { EAGER_VECTOR_BYTES } from '../../../src/modules/knowledge/infrastructure/postgres/knowledge-vector-migration';
import { PgKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/postgres/pg-knowledge-store';
import { catchUpPostings } from '../../../src/modules/knowledge/infrastructure/postgres/pg-search-catch-up';
import { parseSearchQuery, type StoredKnowledgeNode } from '../../../src/modules/knowledge/domain';
import { startTestPostgres, type TestPostgres } from '../../helpers/postgres';
import { deleteNodes, generateNodes, type NodeText } from '../../helpers/pg-search-fixture';

/**
 * Knowledge migration 16: an append leaves the row's search vector NULL and the search's catch-up computes it before
 * it posts the row. So a node added and searched at once must be found on every path (one word, several words
 * through SQL, the cache's sync and its fast path), with the vector the generated column had (wg_knowledge_vector of
 * the node); an unposted node updated, deleted or restored as well; the catch-up's fill is no change for the caches'
 * change log; a node too large to index lazily gets its vector (or its error) in the insert; and the migration keeps
 * the vectors rows have, posted or not.
 */

let pg: TestPostgres;
beforeAll(async () => {
  pg = await startTestPostgres();
}, 120_000);
afterAll(async () => pg?.stop());

const WORDS = 'alpha bravo charlie delta echo foxtrot'.split(' ');
const text = (project: string): NodeText => ({ project, words: WORDS, minWords: 3, spanWords: 10, tags: WORDS, tagRate: 0.3, artifactRate: 0.1 });
const MIB = 1024 * 1024;

async function setup(migrations = knowledgeMigrations) {
  const db = new PgDatabase(await pg.createTestDatabase(), { poolSize: 4 });
  await migrate(db, migrations);
  return { db, plain: new PgKnowledgeStore(db), cached: new PgKnowledgeStore(db, { searchCacheBytes: 64 * MIB }) };
}

/** Rows of `project` whose vector is NULL, and rows whose vector is not the node's (wg_knowledge_vector). */
async function vectors(db: PgDatabase, project: string): Promise<{ empty: number; wrong: number }> {
  const [r] = await db.query<{ empty: string; wrong: string }>(
    `SELECT count(*) FILTER (WHERE search IS NULL)::text AS empty,
            count(*) FILTER (WHERE search IS NOT NULL AND search::text <> wg_knowledge_vector(node)::text)::text AS wrong
     FROM wg_knowledge_nodes WHERE project = $1`,
    [project],
  );
  return { empty: Number(r!.empty), wrong: Number(r!.wrong) };
}

const node = (project: string, id: string, thought: string, tags: string[] = []): StoredKnowledgeNode => ({
  id,
  project,
  projectContext: project,
  thought,
  role: 'actor',
  tags,
  artifacts: [],
  parents: [],
  createdAt: '2026-12-04T12:00:00.000Z',
});

const ids = (page: { hits: Array<{ node: { id: string } }> }) => page.hits.map((h) => h.node.id);

it('a node added and searched at once is found on every path, with and without the cache, its vector computed by that search', async () => {
  const { db, plain, cached } = await setup();
  const cache = cached.searchCache!;
  const P = 'at-once';
  try {
    await plain.withLock(P, (g) => g.append(generateNodes(text(P), 300, 11)));
    // Posted and cached: the cache's lists loaded, its fast path answering.
    const q = { query: parseSearchQuery('alpha bravo'), limit: 5 };
    await cached.reader(P).search(q);
    await cached.reader(P).search(q);
    expect(cache.counters.fast).toBe(1);
    expect(await vectors(db, P)).toEqual({ empty: 0, wrong: 0 });
    let k = 0;
    for (const [label, store, query] of [
      ['one word', plain, 'zulu'],
      ['words through SQL', plain, 'alpha bravo'],
      ['cache sync', cached, 'alpha bravo'],
      ['cache again (fast path declines)', cached, 'alpha bravo'],
      ['phrase', cached, '"alpha bravo"'],
      ['exclusion', cached, 'alpha -charlie'],
    ] as const) {
      // The new node outranks every other: each word of the query 10 + k times (the others have at most 12 words,
      // the nodes added before it fewer repeats), the only one with 'zulu'.
      const id = `new${k}`;
      const words = query.replace(/["-]|charlie/g, '').trim();
      await plain.withLock(P, (g) => g.append([node(P, id, `${Array(10 + k++).fill(words).join(' ')} zulu`)]));
      // Appended: its vector is not computed yet.
      expect({ label, ...(await vectors(db, P)) }).toEqual({ label, empty: 1, wrong: 0 });
      const fast = cache.counters.fast;
      const page = await store.reader(P).search({ query: parseSearchQuery(query), limit: 5 });
      expect({ label, top: ids(page)[0] }).toEqual({ label, top: id });
      if (store === cached) expect({ label, fast: cache.counters.fast }).toEqual({ label, fast });
      // That search's catch-up computed it, exactly as the generated column did.
      expect({ label, ...(await vectors(db, P)) }).toEqual({ label, empty: 0, wrong: 0 });
    }
    // Nothing appended since: the fast path answers again, the newest nodes on its lists.
    const page = await cached.reader(P).search(q);
    expect(ids(page)).toContain('new1');
    expect(cache.counters.fast).toBeGreaterThanOrEqual(2);
  } finally {
    await db.close();
  }
}, 120_000);

it('an unposted node updated, deleted and restored is found as it is now; the fill logs no change; a large node gets its vector in the insert', async () => {
  const { db, plain, cached } = await setup();
  const P = 'unposted';
  try {
    await plain.withLock(P, (g) => g.append(generateNodes(text(P), 100, 5)));
    await cached.reader(P).search({ query: parseSearchQuery('alpha bravo'), limit: 5 });
    const [a, b] = [node(P, 'ua', 'yankee hotel'), node(P, 'ub', 'yankee kilo')];
    await plain.withLock(P, (g) => g.append([a, b]));
    // An update in place before any search: the new vector at once (the node is still unposted).
    await plain.withLock(P, (g) => g.updateNodes(new Set(['ua']), (x) => ({ ...x, thought: 'yankee lima' })));
    const [ua] = await db.query<{ v: string | null }>(`SELECT search::text AS v FROM wg_knowledge_nodes WHERE project = $1 AND id = 'ua'`, [P]);
    expect(ua!.v).toBe("'lima':2A 'yanke':1A");
    expect(await vectors(db, P)).toEqual({ empty: 1, wrong: 0 });
    // The fill of 'ub' is not a change the caches must replay: the change log stays as the update left it.
    const changes = async () => Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM wg_knowledge_changes WHERE project = $1', [P]))[0]!.n);
    const logged = await changes();
    await catchUpPostings(db, P);
    expect(await changes()).toBe(logged);
    expect(await vectors(db, P)).toEqual({ empty: 0, wrong: 0 });
    for (const store of [plain, cached]) {
      expect(ids(await store.reader(P).search({ query: parseSearchQuery('yankee lima'), limit: 5 }))).toEqual(['ua']);
      expect(ids(await store.reader(P).search({ query: parseSearchQuery('yankee hotel'), limit: 5 }))).toEqual([]);
      expect(ids(await store.reader(P).search({ query: parseSearchQuery('yankee -lima'), limit: 5 }))).toEqual(['ub']);
    }
    // Deleted while unposted, restored (a new seq: unposted again), searched at once.
    const c = node(P, 'uc', 'yankee mike');
    await plain.withLock(P, (g) => g.append([c]));
    const gone = await deleteNodes(plain, P, ['uc']);
    for (const store of [plain, cached]) expect(ids(await store.reader(P).search({ query: parseSearchQuery('yankee mike'), limit: 5 }))).toEqual([]);
    await plain.withLock(P, (g) => g.restore(gone));
    expect(await vectors(db, P)).toEqual({ empty: 1, wrong: 0 });
    for (const store of [cached, plain]) expect(ids(await store.reader(P).search({ query: parseSearchQuery('yankee mike'), limit: 5 }))).toEqual(['uc']);
    // Past EAGER_VECTOR_BYTES the insert computes the vector (a vector too large fails that write, not a search).
    const big = node(P, 'big', `${'november oscar '.repeat(Math.ceil(EAGER_VECTOR_BYTES / 15))}papa`);
    await plain.withLock(P, (g) => g.append([big, node(P, 'small', 'papa quebec')]));
    const rows = await db.query<{ id: string; has: boolean }>(`SELECT id, search IS NOT NULL AS has FROM wg_knowledge_nodes WHERE project = $1 AND id IN ('big', 'small') ORDER BY id`, [P]);
    expect(rows).toEqual([{ id: 'big', has: true }, { id: 'small', has: false }]);
    expect(ids(await plain.reader(P).search({ query: parseSearchQuery('papa'), limit: 5 })).sort()).toEqual(['big', 'small']);
    expect(await vectors(db, P)).toEqual({ empty: 0, wrong: 0 });
  } finally {
    await db.close();
  }
}, 120_000);

it('an import writes its rows with their vectors: the catch-up after it updates no row', async () => {
  const { db, plain } = await setup();
  try {
    await plain.withLock('from', (g) => g.append(generateNodes(text('from'), 40, 13)));
    const data = (await plain.exportProject('from'))!;
    await plain.importProject({ ...data, project: 'to' });
    expect(await vectors(db, 'to')).toEqual({ empty: 0, wrong: 0 });
    const updates = async () => Number((await db.query<{ n: string }>(`SELECT n_tup_upd::text AS n FROM pg_stat_xact_user_tables WHERE relname = 'wg_knowledge_nodes'`))[0]!.n);
    const [, filled] = await db.transaction(async (tx) => [await tx.query(`SELECT wg_knowledge_postings_catch_up('to')`), await updates()] as const);
    expect(filled).toBe(0);
    expect(ids(await plain.reader('to').search({ query: parseSearchQuery('alpha'), limit: 50 })).length).toBeGreaterThan(5);
  } finally {
    await db.close();
  }
}, 120_000);

it('migration 16 keeps the vectors of rows posted and not posted, and later appends are lazy', async () => {
  const { db, plain } = await setup(knowledgeMigrations.filter((m) => m.version <= 15));
  const P = 'migrated';
  try {
    await plain.withLock(P, (g) => g.append(generateNodes(text(P), 120, 3)));
    await catchUpPostings(db, P);
    await plain.withLock(P, (g) => g.append(generateNodes(text(P), 30, 4, 120)));
    expect(await vectors(db, P)).toEqual({ empty: 0, wrong: 0 });
    await migrate(db, knowledgeMigrations);
    expect(await vectors(db, P)).toEqual({ empty: 0, wrong: 0 });
    await plain.withLock(P, (g) => g.append(generateNodes(text(P), 10, 5, 150)));
    expect(await vectors(db, P)).toEqual({ empty: 10, wrong: 0 });
    const [want] = await db.query<{ n: string }>(`SELECT count(*)::text AS n FROM wg_knowledge_nodes WHERE project = $1 AND wg_knowledge_vector(node) @@ 'alpha'::tsquery`, [P]);
    const page = await plain.reader(P).search({ query: parseSearchQuery('alpha'), limit: 5 });
    expect(page.total).toBe(Number(want!.n));
    expect(await vectors(db, P)).toEqual({ empty: 0, wrong: 0 });
  } finally {
    await db.close();
  }
}, 120_000);

it("rows a pair-list build listed before their vectors were computed get their pairs when the catch-up fills them", async () => {
  const { db, plain } = await setup();
  const P = 'pairs';
  try {
    await plain.withLock(P, (g) => g.append(generateNodes(text(P), 50, 8)));
    await catchUpPostings(db, P);
    // Unposted rows on both sides of chunk 0's end; a build (the cache's background one needs no catch-up) lists
    // chunk 0 while their vectors are NULL.
    await db.query(`SELECT setval('wg_knowledge_seq', 8192 - 30)`);
    await plain.withLock(P, (g) => g.append(generateNodes(text(P), 60, 9, 50)));
    expect((await vectors(db, P)).empty).toBe(60);
    const [built] = await db.query<{ b: string }>('SELECT wg_knowledge_pairs_build($1)::text AS b', [P]);
    expect(built!.b).toBe('1');
    await catchUpPostings(db, P);
    // The lists of chunk 0 are those its rows' vectors hold now.
    const [drift] = await db.query<{ n: string; rows: string }>(
      `WITH p AS (SELECT n.seq, u.lexeme, x.pos FROM wg_knowledge_nodes n, unnest(n.search) u, unnest(u.positions) x(pos) WHERE n.project = $1 AND n.seq < 8192),
            want AS (SELECT a.lexeme || ' ' || b.lexeme AS pair, array_agg(DISTINCT (a.seq % 8192)::int ORDER BY (a.seq % 8192)::int) AS offs
                     FROM p a JOIN p b ON b.seq = a.seq AND b.pos = a.pos + 1 GROUP BY 1),
            kept AS (SELECT pair, ARRAY(SELECT e::int FROM unnest(seqs) e ORDER BY e) AS offs FROM wg_knowledge_pair_seqs WHERE project = $1 AND chunk = 0 AND cardinality(seqs) > 0)
       SELECT (SELECT count(*) FROM want w FULL JOIN kept k ON k.pair = w.pair COLLATE "C" WHERE w.offs IS DISTINCT FROM k.offs)::text AS n,
              (SELECT count(*) FROM kept WHERE offs[cardinality(offs)] >= 8192 - 30)::text AS rows`,
      [P],
    );
    expect(Number(drift!.n)).toBe(0);
    expect(Number(drift!.rows)).toBeGreaterThan(3);
    expect(ids(await plain.reader(P).search({ query: parseSearchQuery('"alpha bravo"'), limit: 3 })).length).toBeGreaterThan(0);
  } finally {
    await db.close();
  }
}, 120_000);

it('catch-ups with rows to fill never scan the nodes table, past the generic plans (30,000 nodes)', async () => {
  const url = await pg.createTestDatabase();
  const db = new PgDatabase(url, { poolSize: 1 });
  const P = 'plans';
  const scans = async () => {
    await db.query('SELECT pg_stat_clear_snapshot()');
    await db.query('SELECT pg_stat_force_next_flush()');
    return Number((await db.query<{ n: string }>(`SELECT seq_scan::text AS n FROM pg_stat_user_tables WHERE relname = 'wg_knowledge_nodes'`))[0]!.n);
  };
  try {
    await migrate(db, knowledgeMigrations);
    const store = new PgKnowledgeStore(db);
    for (let from = 0; from < 30_000; from += 5_000) await store.withLock(P, (g) => g.append(generateNodes(text(P), 5_000, 21 + from, from)));
    await catchUpPostings(db, P);
    await db.query('ANALYZE');
    const before = await scans();
    // On one connection (the function's plans cached past the five custom ones): append, then the catch-up fills.
    for (let round = 0; round < 10; round++) {
      await store.withLock(P, (g) => g.append(generateNodes(text(P), 50, 99 + round, 30_000 + round * 50)));
      await catchUpPostings(db, P);
    }
    expect({ seqScansOfTheNodesTable: (await scans()) - before }).toEqual({ seqScansOfTheNodesTable: 0 });
    expect(await vectors(db, P)).toEqual({ empty: 0, wrong: 0 });
  } finally {
    await db.close();
  }
}, 180_000);
