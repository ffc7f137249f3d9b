// Knowledge graph in PostgreSQL beside the NDJSON files, same graph, same run (issue 16): the first page of list_nodes
// and delete_nodes of 10 leaves, through the built use cases (dist/) of a container per store. Size: 100,000 nodes by
// default; BENCH_KNOWLEDGE_PG_NODES=1000000 for the figures of docs/postgres.md (generating and importing a million
// nodes takes a few minutes). Goals: first page under 20 ms, delete under 1 s at 1,000,000 nodes.
// PostgreSQL: an embedded server (fsync on) or WORKGRAPH_BENCH_DATABASE_URL.
const path = require('node:path');
const fs = require('node:fs');
const { performance } = require('node:perf_hooks');
const { ROOT, tempDir, stats, report, startPostgres } = require('./lib.js');
const { generateKnowledgeGraph } = require('./fixtures/knowledge-graph.js');

const NODES = Number(process.env.BENCH_KNOWLEDGE_PG_NODES || 100_000);
const PROJECT = 'bench-k';
const LEAVES = 10;
const ROUNDS = 3;
const LIST_RUNS = 30;

function container(config) {
  require('reflect-metadata');
  const { createTestContainer } = require(path.join(ROOT, 'dist', 'server', 'container.js'));
  const { KnowledgeTokens } = require(path.join(ROOT, 'dist', 'modules', 'knowledge', 'index.js'));
  return { c: createTestContainer(config), KnowledgeTokens };
}

async function firstPage(c, KnowledgeTokens) {
  const useCase = c.resolve(KnowledgeTokens.ListKnowledgeNodes);
  const samples = [];
  for (let i = 0; i < LIST_RUNS + 3; i++) {
    const t0 = performance.now();
    const r = await useCase.execute({ projectContext: PROJECT, limit: 20 });
    if (r.nodes.length !== 20) throw new Error(`list_nodes answered ${r.nodes.length} nodes`);
    if (i >= 3) samples.push(performance.now() - t0); // the first calls warm up modules and connections
  }
  return stats(samples);
}

/** Best of ROUNDS deletes of LEAVES leaves each (fresh leaves per round). */
async function deletes(c, KnowledgeTokens, batches) {
  const useCase = c.resolve(KnowledgeTokens.DeleteKnowledgeNodes);
  const times = [];
  for (const ids of batches) {
    const t0 = performance.now();
    const r = await useCase.execute({ nodeIds: ids, projectContext: PROJECT, reason: 'bench' });
    times.push(performance.now() - t0);
    if (!r.success || r.deletedNodeIds.length !== LEAVES) throw new Error(`delete_nodes did not delete ${LEAVES} nodes: ${JSON.stringify(r).slice(0, 300)}`);
    if (r.backupPath && !r.backupPath.startsWith('postgresql:')) fs.rmSync(r.backupPath); // keep the disk use down
  }
  return Math.min(...times);
}

async function main() {
  const dataDir = tempDir('wg-bench-kpg-');
  const pg = await startPostgres();
  let db;
  try {
    const file = path.join(dataDir, 'projects', PROJECT, 'knowledge_graph.ndjson');
    const { bytes, leaves } = await generateKnowledgeGraph(file, NODES, { project: PROJECT, leafCount: LEAVES * ROUNDS * 2 });
    const batches = (k) => Array.from({ length: ROUNDS }, (_, r) => leaves.slice((k * ROUNDS + r) * LEAVES, (k * ROUNDS + r + 1) * LEAVES));
    const files = container({ dataDir });
    const pgc = container({ dataDir: path.join(dataDir, 'unused'), database: { url: pg.url, poolSize: 4 } });
    db = pgc.c.resolve(Symbol.for('workgraph.Database'));

    // The same graph into PostgreSQL through the port (what `workgraph db import` does).
    const { copyKnowledgeProject } = require(path.join(ROOT, 'dist', 'modules', 'knowledge', 'index.js'));
    const store = (x) => x.c.resolve(x.KnowledgeTokens.KnowledgeStore);
    const t0 = performance.now();
    const copied = await copyKnowledgeProject(store(files), store(pgc), PROJECT, { replace: true });
    const importMs = performance.now() - t0;
    if (copied.outcome === 'skipped') throw new Error('import skipped');
    await db.query('ANALYZE');

    const common = { nodes: NODES, fileMb: Math.round(bytes / 1e5) / 10 };
    const filesPage = await firstPage(files.c, files.KnowledgeTokens);
    const pgPage = await firstPage(pgc.c, pgc.KnowledgeTokens);
    report('knowledge-postgres', `list_nodes first page median at ${NODES} nodes: PostgreSQL vs NDJSON files`, pgPage.median, filesPage.median, 'ms', {
      ...common,
      pgP99: pgPage.p99,
      goal: 'PostgreSQL value < 20 ms',
    });
    const filesDelete = await deletes(files.c, files.KnowledgeTokens, batches(0));
    const pgDelete = await deletes(pgc.c, pgc.KnowledgeTokens, batches(1));
    report('knowledge-postgres', `delete_nodes of ${LEAVES} leaves at ${NODES} nodes (best of ${ROUNDS}): PostgreSQL vs NDJSON files`, pgDelete, filesDelete, 'ms', {
      ...common,
      goal: 'PostgreSQL value < 1000 ms',
    });
    report('knowledge-postgres', `db import of ${NODES} nodes: nodes per second`, NODES / (importMs / 1000), undefined, 'nodes/s', common);
    const [{ size }] = await db.query("SELECT pg_total_relation_size('wg_knowledge_nodes')::float8 AS size");
    report('knowledge-postgres', 'bytes per node: PostgreSQL table with its indexes vs the NDJSON line', size / NODES, bytes / NODES, 'bytes', common);
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
