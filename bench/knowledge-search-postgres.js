// search_nodes on the PostgreSQL store (issue 23, item 4): the first page of search_nodes (one word, three words, a
// phrase, a rare word with OR and a negation, the queries of bench/knowledge-search.js) beside list_nodes' first page,
// medians, through the built use cases (dist/) of one container on an embedded PostgreSQL (fsync on) or
// WORKGRAPH_BENCH_DATABASE_URL. The bar is ≤ 3× list_nodes' first page at 1,000,000 nodes. Size: 100,000 nodes by
// default (generated and imported in a minute or two); BENCH_SEARCH_PG_NODES=1000000 for the bar's size.
const path = require('node:path');
const fs = require('node:fs');
const { performance } = require('node:perf_hooks');
const { ROOT, tempDir, stats, report, startPostgres } = require('./lib.js');
const { generateKnowledgeGraph } = require('./fixtures/knowledge-graph.js');

const NODES = Number(process.env.BENCH_SEARCH_PG_NODES || 100_000);
const RUNS = Number(process.env.BENCH_SEARCH_RUNS || 15);
const PROJECT = 'bench-k';
const QUERIES = [
  ['one word', 'retry'],
  ['three words', 'retry cache budget'],
  ['phrase', '"retry backoff"'],
  ['rare word', 'zyzzyva OR latency -parser'],
];

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

async function main() {
  const dataDir = tempDir('wg-bench-kpg-search-');
  const pg = await startPostgres();
  let db;
  try {
    const file = path.join(dataDir, 'projects', PROJECT, 'knowledge_graph.ndjson');
    const { bytes } = await generateKnowledgeGraph(file, NODES, { project: PROJECT });
    const files = container({ dataDir });
    const pgc = container({ dataDir: path.join(dataDir, 'unused'), database: { url: pg.url, poolSize: 4 } });
    db = pgc.c.resolve(Symbol.for('workgraph.Database'));
    // The same graph into PostgreSQL through the port (what `workgraph db import` does).
    const { copyKnowledgeProject } = require(path.join(ROOT, 'dist', 'modules', 'knowledge', 'index.js'));
    const store = (x) => x.c.resolve(x.KnowledgeTokens.KnowledgeStore);
    const copied = await copyKnowledgeProject(store(files), store(pgc), PROJECT, { replace: true });
    if (copied.outcome === 'skipped') throw new Error('import skipped');
    fs.rmSync(dataDir, { recursive: true, force: true }); // the NDJSON is not needed past the import
    await db.query('ANALYZE');

    const { KnowledgeTokens } = pgc;
    const list = pgc.c.resolve(KnowledgeTokens.ListKnowledgeNodes);
    const search = pgc.c.resolve(KnowledgeTokens.SearchKnowledgeNodes);
    const listPage = await median(async () => {
      const r = await list.execute({ projectContext: PROJECT, limit: 10 });
      if (r.nodes.length !== 10) throw new Error(`list_nodes answered ${r.nodes.length} nodes`);
    });
    const common = { nodes: NODES, fileMb: Math.round(bytes / 1e5) / 10, goal: 'ratio ≤ 3 at 1,000,000 nodes' };
    for (const [name, query] of QUERIES) {
      let total = 0;
      let totalExact = true;
      const page = await median(async () => {
        const r = await search.execute({ projectContext: PROJECT, query, limit: 10 });
        if (!r.hits.length) throw new Error(`search_nodes '${query}' found nothing`);
        total = r.total;
        totalExact = r.totalExact;
      });
      report('knowledge-search-postgres', `search_nodes first page, ${name} (${NODES} nodes, PostgreSQL) vs list_nodes first page`, page.median, listPage.median, 'ms', {
        ...common,
        matches: totalExact ? total : `${total}+`,
        p99: page.p99,
      });
    }
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
