// search_nodes on the PostgreSQL store (issue 23, item 4): the first page of search_nodes (one word, three words, a
// phrase, a rare word with OR and a negation, the queries of bench/knowledge-search.js) beside list_nodes' first page,
// medians, through the built use cases (dist/) of one container on an embedded PostgreSQL (fsync on) or
// WORKGRAPH_BENCH_DATABASE_URL. The bar is ≤ 3× list_nodes' first page at 1,000,000 nodes. Size: 100,000 nodes by
// default (generated and imported in a minute or two); BENCH_SEARCH_PG_NODES=1000000 for the bar's size.
// Also add_nodes throughput (batches of 100 onto BENCH_SEARCH_PG_ADD_SEED nodes, 20,000) on four databases of the same
// server, batches interleaved: the full schema, the same without the pair lists' insert/update trigger (migration 9:
// writes never build lists, a phrase search does; what an insert still pays is that trigger's empty join), without the
// postings triggers, and without any search column (the tsvector, its GIN index and the postings): the bar is
// ≥ 0.7× the one without.
// The search cache (pg-search-cache.ts, on by default): the queries it answers ('three words', 'words and an
// exclusion', 'phrase', 'word and phrase') run through a container with the cache and one without (WORKGRAPH_SEARCH_CACHE_MB=0: the SQL path),
// interleaved with list_nodes: cold (the first call: the lists loaded) and warm medians, the SQL path's median, the
// process's RSS with the lists held; add_nodes also beside the same schema without the change log's triggers
// (migration 10: deletes and updates only, so an insert should pay nothing). The default-server figures print how many
// of their calls the cache's fast path answered (`fast` of `of`: a first page in one statement, pg-search-fast.ts).
// BENCH_SEARCH_PG_REUSE=1 with WORKGRAPH_BENCH_DATABASE_URL searches a project an earlier run imported (seeding a
// million nodes takes minutes); BENCH_SEARCH_PG_ADD_BATCHES=0 leaves out the add_nodes part.
// Last, the built server's peak RSS (issue 23: < 400 MiB with the 1,000,000-node project searched): `serve
// --database-url` over stdio, driven by the SDK's client (list_nodes, then each query once, the cache's queries
// included: its lists are held in the server), VmHWM (bench/lib-server-rss.js); the rssMb figures above are this
// bench's own process, which holds two containers and the cache.
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { performance } = require('node:perf_hooks');
const { ROOT, tempDir, stats, report, startPostgres } = require('./lib.js');
const { generateKnowledgeGraph } = require('./fixtures/knowledge-graph.js');
const { serverPeakRss } = require('./lib-server-rss.js');

const NODES = Number(process.env.BENCH_SEARCH_PG_NODES || 100_000);
const RUNS = Number(process.env.BENCH_SEARCH_RUNS || 15);
const PROJECT = 'bench-k';
const ADD_SEED = Number(process.env.BENCH_SEARCH_PG_ADD_SEED || 20_000);
const ADD_BATCHES = Number(process.env.BENCH_SEARCH_PG_ADD_BATCHES || 40);
const QUERIES = [
  ['one word', 'retry'],
  ['three words', 'retry cache budget'],
  ['phrase', '"retry backoff"'],
  ['rare word', 'zyzzyva OR latency -parser'],
];
/** Queries the search cache answers: measured through it (cold and warm) and through the SQL path. */
const CACHED = [
  ['three words', 'retry cache budget'],
  ['words and an exclusion', 'retry cache -budget'],
  // A phrase's pair list (pg-search-pair-list-source.ts) an unscored required list beside its words' postings.
  ['phrase', '"retry backoff"'],
  ['word and phrase', 'retry "cache budget"'],
];
const MIB = 1024 * 1024;
const knowledgeConfig = (cacheMb) => ({ backupMaxAgeDays: 90, backupMaxCount: 50, searchCacheBytes: cacheMb * MIB });

function container(config) {
  require('reflect-metadata');
  const { createTestContainer } = require(path.join(ROOT, 'dist', 'server', 'container.js'));
  const { KnowledgeTokens } = require(path.join(ROOT, 'dist', 'modules', 'knowledge', 'index.js'));
  return { c: createTestContainer(config), KnowledgeTokens };
}

/** Median of RUNS calls after 3 warm-up calls (modules, connections, PostgreSQL's caches). */
async function median(fn) {
  const samples = [];
  for (let i = 0; i < RUNS + 3; i++) {
    const t0 = performance.now();
    await fn();
    if (i >= 3) samples.push(performance.now() - t0);
  }
  return stats(samples);
}

/** A database of `pg`'s server made for one variant (the server's own URL with another database name). */
async function createDatabase(url, name) {
  const { Client } = require('pg');
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Drops the variants' databases (named after this process: benches of several engineers share one server). */
async function dropDatabases(url, names) {
  const { Client } = require('pg');
  const admin = new Client({ connectionString: url });
  await admin.connect();
  try {
    for (const n of names) await admin.query(`DROP DATABASE IF EXISTS ${n}`);
  } finally {
    await admin.end();
  }
}

/**
 * add_nodes throughput through the store's locked append (what add_nodes does after its checks), batches of 100
 * onto ADD_SEED imported nodes, interleaved over the variants: 'full' (the schema as migrated), 'no postings' (its
 * postings triggers disabled), 'no search' (also the tsvector column and its GIN index dropped).
 */
async function addThroughput(url, dataDir) {
  const file = path.join(dataDir, 'projects', PROJECT, 'knowledge_graph.ndjson');
  await generateKnowledgeGraph(file, ADD_SEED, { project: PROJECT });
  const files = container({ dataDir });
  const { copyKnowledgeProject } = require(path.join(ROOT, 'dist', 'modules', 'knowledge', 'index.js'));
  const variants = [
    ['full', []],
    ['no pairs', ['ALTER TABLE wg_knowledge_nodes DISABLE TRIGGER wg_knowledge_pairs_ins', 'ALTER TABLE wg_knowledge_nodes DISABLE TRIGGER wg_knowledge_pairs_upd']],
    ['no change log', ['ALTER TABLE wg_knowledge_nodes DISABLE TRIGGER wg_knowledge_changes_del', 'ALTER TABLE wg_knowledge_nodes DISABLE TRIGGER wg_knowledge_changes_upd']],
    ['no postings', ['ALTER TABLE wg_knowledge_nodes DISABLE TRIGGER USER']],
    ['no search', ['ALTER TABLE wg_knowledge_nodes DISABLE TRIGGER USER', 'ALTER TABLE wg_knowledge_nodes DROP COLUMN search']],
  ];
  const runs = [];
  for (const [name, ddl] of variants) {
    const c = container({ dataDir: path.join(dataDir, 'unused'), database: { url: await createDatabase(url, `wg_bench_add_${process.pid}_${runs.length}`), poolSize: 2 } });
    const store = c.c.resolve(c.KnowledgeTokens.KnowledgeStore);
    await copyKnowledgeProject(files.c.resolve(files.KnowledgeTokens.KnowledgeStore), store, PROJECT, { replace: true });
    const db = c.c.resolve(Symbol.for('workgraph.Database'));
    for (const sql of ddl) await db.query(sql);
    await db.query('VACUUM ANALYZE');
    runs.push({ name, store, db, ms: 0 });
  }
  let id = 0;
  const batch = () =>
    Array.from({ length: 100 }, () => ({
      id: `add-${id++}`, project: PROJECT, projectContext: PROJECT, thought: 'Retry the parser cache with a budget for the worker queue and review the batch latency.',
      role: 'actor', tags: ['perf'], artifacts: [], parents: [], createdAt: new Date().toISOString(),
    }));
  for (let i = 0; i < ADD_BATCHES; i++) {
    for (const r of runs) {
      const nodes = batch();
      const t = performance.now();
      await r.store.withLock(PROJECT, (g) => g.append(nodes));
      r.ms += performance.now() - t;
    }
  }
  for (const r of runs) await r.db.close();
  await dropDatabases(url, runs.map((_, i) => `wg_bench_add_${process.pid}_${i}`));
  fs.rmSync(dataDir, { recursive: true, force: true });
  const rate = (r) => (ADD_BATCHES * 100) / (r.ms / 1000);
  const [full, noPairs, noChangeLog, noPostings, noSearch] = runs;
  const extra = { seed: ADD_SEED, batches: ADD_BATCHES, goal: 'ratio ≥ 0.7 vs no search' };
  report('knowledge-search-postgres', `add_nodes throughput (batches of 100 onto ${ADD_SEED} nodes, PostgreSQL) vs without the pair lists' trigger (migration 9)`, rate(full), rate(noPairs), 'nodes/s', { ...extra, goal: 'ratio ≥ 0.9' });
  report('knowledge-search-postgres', `add_nodes throughput (batches of 100 onto ${ADD_SEED} nodes, PostgreSQL) vs without the change log's triggers (migration 10)`, rate(full), rate(noChangeLog), 'nodes/s', { ...extra, goal: 'ratio ≈ 1' });
  report('knowledge-search-postgres', `add_nodes throughput (batches of 100 onto ${ADD_SEED} nodes, PostgreSQL) vs without the postings triggers (postings, term counts, bitmaps)`, rate(full), rate(noPostings), 'nodes/s', extra);
  report('knowledge-search-postgres', `add_nodes throughput (batches of 100 onto ${ADD_SEED} nodes, PostgreSQL) vs without search`, rate(full), rate(noSearch), 'nodes/s', extra);
}

/**
 * The project already in the database (BENCH_SEARCH_PG_REUSE=1 with WORKGRAPH_BENCH_DATABASE_URL: a database seeded by
 * an earlier run is searched again, its pending migrations applied first) when it holds NODES nodes.
 */
async function alreadySeeded(db) {
  if (process.env.BENCH_SEARCH_PG_REUSE !== '1') return false;
  const [row] = await db.query('SELECT nodes::text AS n FROM wg_knowledge_projects WHERE project = $1', [PROJECT]);
  return Number(row?.n ?? 0) === NODES;
}

async function main() {
  const dataDir = tempDir('wg-bench-kpg-search-');
  const pg = await startPostgres();
  let db;
  try {
    if (ADD_BATCHES > 0) await addThroughput(pg.url, tempDir('wg-bench-kpg-add-'));
    const file = path.join(dataDir, 'projects', PROJECT, 'knowledge_graph.ndjson');
    // The SQL path's container (no cache): the seeding, list_nodes and every query's SQL figure.
    const pgc = container({ dataDir: path.join(dataDir, 'unused'), database: { url: pg.url, poolSize: 4 }, knowledge: knowledgeConfig(0) });
    db = pgc.c.resolve(Symbol.for('workgraph.Database'));
    const t0 = performance.now();
    await db.ensureReady(); // the migrations (on a reused database: the ones it has not had yet, indexing its rows)
    const migrateMs = performance.now() - t0;
    let bytes = 0;
    if (!(await alreadySeeded(db))) {
      ({ bytes } = await generateKnowledgeGraph(file, NODES, { project: PROJECT }));
      const files = container({ dataDir });
      // The same graph into PostgreSQL through the port (what `workgraph db import` does).
      const { copyKnowledgeProject } = require(path.join(ROOT, 'dist', 'modules', 'knowledge', 'index.js'));
      const store = (x) => x.c.resolve(x.KnowledgeTokens.KnowledgeStore);
      const copied = await copyKnowledgeProject(store(files), store(pgc), PROJECT, { replace: true });
      if (copied.outcome === 'skipped') throw new Error('import skipped');
      fs.rmSync(dataDir, { recursive: true, force: true }); // the NDJSON is not needed past the import
      await db.query('ANALYZE');
    }

    const { KnowledgeTokens } = pgc;
    const list = pgc.c.resolve(KnowledgeTokens.ListKnowledgeNodes);
    const search = pgc.c.resolve(KnowledgeTokens.SearchKnowledgeNodes);
    // Every round runs list_nodes' first page and then each query once (interleaved), 3 unmeasured rounds first.
    const samples = { list: [], ...Object.fromEntries(QUERIES.map(([name]) => [name, []])) };
    const totals = {};
    for (let i = 0; i < RUNS + 3; i++) {
      let t = performance.now();
      const r = await list.execute({ projectContext: PROJECT, limit: 10 });
      if (r.nodes.length !== 10) throw new Error(`list_nodes answered ${r.nodes.length} nodes`);
      if (i >= 3) samples.list.push(performance.now() - t);
      for (const [name, query] of QUERIES) {
        t = performance.now();
        const s = await search.execute({ projectContext: PROJECT, query, limit: 10 });
        if (i >= 3) samples[name].push(performance.now() - t);
        if (!s.hits.length) throw new Error(`search_nodes '${query}' found nothing`);
        totals[name] = s.totalExact ? s.total : `${s.total}+`;
      }
    }
    const listPage = stats(samples.list);
    const common = { nodes: NODES, ...(bytes ? { fileMb: Math.round(bytes / 1e5) / 10 } : { reused: true, migrateMs: Math.round(migrateMs) }), goal: 'ratio ≤ 3 at 1,000,000 nodes', load: os.loadavg()[0] };
    for (const [name, query] of QUERIES) {
      const page = stats(samples[name]);
      report('knowledge-search-postgres', `search_nodes first page, ${name} '${query}' (${NODES} nodes, PostgreSQL) vs list_nodes first page`, page.median, listPage.median, 'ms', {
        ...common,
        matches: totals[name],
        p99: page.p99,
      });
    }

    // The cache's queries: a container of its own (a host with a cache), cold first calls, then rounds interleaving
    // list_nodes, the SQL path and the cache.
    const cc = container({ dataDir: path.join(dataDir, 'unused'), database: { url: pg.url, poolSize: 4 }, knowledge: knowledgeConfig(128) });
    const cachedSearch = cc.c.resolve(cc.KnowledgeTokens.SearchKnowledgeNodes);
    const cache = cc.c.resolve(cc.KnowledgeTokens.KnowledgeStore).searchCache;
    const cold = {};
    for (const [name, query] of CACHED) {
      const t = performance.now();
      await cachedSearch.execute({ projectContext: PROJECT, query, limit: 10 });
      cold[name] = performance.now() - t;
    }
    const cs = { list: [], ...Object.fromEntries(CACHED.flatMap(([name]) => [[`sql ${name}`, []], [`cache ${name}`, []]])) };
    for (let i = 0; i < RUNS + 3; i++) {
      let t = performance.now();
      await list.execute({ projectContext: PROJECT, limit: 10 });
      if (i >= 3) cs.list.push(performance.now() - t);
      for (const [name, query] of CACHED) {
        t = performance.now();
        const a = await search.execute({ projectContext: PROJECT, query, limit: 10 });
        if (i >= 3) cs[`sql ${name}`].push(performance.now() - t);
        t = performance.now();
        const b = await cachedSearch.execute({ projectContext: PROJECT, query, limit: 10 });
        if (i >= 3) cs[`cache ${name}`].push(performance.now() - t);
        if (JSON.stringify(a.hits.map((h) => [h.id, h.score])) !== JSON.stringify(b.hits.map((h) => [h.id, h.score])) || a.total !== b.total) {
          throw new Error(`the cache answered '${query}' otherwise than SQL`);
        }
        totals[name] = b.totalExact ? b.total : `${b.total}+`;
      }
    }
    const list2 = stats(cs.list);
    const held = { cacheMb: Math.round((cache.bytes / MIB) * 10) / 10, rssMb: Math.round(process.memoryUsage().rss / MIB), loadMs: cache.counters.loadMs };
    for (const [name, query] of CACHED) {
      const warm = stats(cs[`cache ${name}`]);
      const sql = stats(cs[`sql ${name}`]);
      const extra = { ...common, matches: totals[name], ...held, load: os.loadavg()[0] };
      report('knowledge-search-postgres', `search_nodes first page through the cache, warm, ${name} '${query}' (${NODES} nodes) vs list_nodes first page`, warm.median, list2.median, 'ms', { ...extra, p99: warm.p99 });
      report('knowledge-search-postgres', `search_nodes first page through the cache, cold (first call, lists loaded), ${name} '${query}' (${NODES} nodes) vs list_nodes first page`, cold[name], list2.median, 'ms', extra);
      report('knowledge-search-postgres', `search_nodes first page, SQL path, ${name} '${query}' (${NODES} nodes) vs list_nodes first page`, sql.median, list2.median, 'ms', { ...extra, p99: sql.p99 });
      report('knowledge-search-postgres', `search_nodes first page, cache warm vs SQL path, ${name} '${query}' (${NODES} nodes)`, warm.median, sql.median, 'ms', extra);
    }
    // The server as it runs by default (cache on, warm): list_nodes and the cache's queries interleaved round by round,
    // nothing else between them — the figure a user of one host sees; the rounds above put a SQL-path query (tens of
    // milliseconds of PostgreSQL work) before each cached one, for the cache ÷ SQL ratio.
    const alone = { list: [], ...Object.fromEntries(CACHED.map(([name]) => [name, []])) };
    const fastBefore = cache.counters.fast;
    const cachedList = cc.c.resolve(cc.KnowledgeTokens.ListKnowledgeNodes);
    for (let i = 0; i < RUNS + 3; i++) {
      let t = performance.now();
      await cachedList.execute({ projectContext: PROJECT, limit: 10 });
      if (i >= 3) alone.list.push(performance.now() - t);
      for (const [name, query] of CACHED) {
        t = performance.now();
        await cachedSearch.execute({ projectContext: PROJECT, query, limit: 10 });
        if (i >= 3) alone[name].push(performance.now() - t);
      }
    }
    const list3 = stats(alone.list);
    // First pages the fast path answered (pg-search-fast.ts: one statement) of the calls timed just above.
    const fast = { fast: cache.counters.fast - fastBefore, of: (RUNS + 3) * CACHED.length, stale: cache.counters.stale };
    for (const [name, query] of CACHED) {
      const warm = stats(alone[name]);
      report('knowledge-search-postgres', `search_nodes first page, default server (cache on, warm; only list_nodes between), ${name} '${query}' (${NODES} nodes) vs list_nodes first page`, warm.median, list3.median, 'ms', {
        ...common, matches: totals[name], cacheMb: Math.round((cache.bytes / MIB) * 10) / 10, rssMb: Math.round(process.memoryUsage().rss / MIB), load: os.loadavg()[0], p99: warm.p99, ...fast,
      });
    }
    await cc.c.resolve(Symbol.for('workgraph.Database')).close();

    // The server itself on the same database (the SDK client's calls; the server only reads: list and search).
    const serverQueries = [...QUERIES, ...CACHED.filter(([name]) => !QUERIES.some(([n]) => n === name))];
    const server = await serverPeakRss(['--database-url', pg.url, '--data-dir', path.join(dataDir, 'server')], PROJECT, serverQueries);
    report('knowledge-search-postgres', `server peak RSS (serve --database-url over stdio, SDK client) with the ${NODES}-node PostgreSQL project searched`, server.peakMb, 400, 'MiB', {
      goal: 'value < 400 MiB', startedMb: Math.round(server.startedMb * 10) / 10, benchProcessRssMb: held.rssMb, callsMs: server.calls, matches: server.totals, nodes: NODES, load: server.load,
    });
  } finally {
    await db?.close();
    await pg.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
