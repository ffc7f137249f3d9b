// delete_nodes of 10 leaf nodes on generated graphs of 100,000 and 1,000,000 nodes (BENCH_KNOWLEDGE_SIZES=comma list
// to override), through the built DeleteNodes use case (dist/), beside a plain streaming read-parse-write of the same
// file measured in the same run. Goals (DESIGN.md §4): time within 2x of the plain pass; peak RSS under 150 MB at
// 1,000,000 nodes. Each delete and each baseline runs in a fresh child process, which reports its time and its peak RSS
// (process.resourceUsage().maxRSS). Also: the first page of list_nodes at each size beside the same at 1,000 nodes.
// The project has its search index, as a served project has (a delete rewrites the graph and the index follows the
// rewrite: search-index.ts afterRewrite): before each delete a child builds the index afresh, timed (figure
// `indexRebuildMs`: what a delete paid before the index followed rewrites), so the delete never pays for an index
// missing before it. BENCH_PROFILE_DIR: the delete children
// write V8 CPU profiles there.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const readline = require('node:readline');
const { spawnSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { ROOT, tempDir, stats, report } = require('./lib.js');
const { generateKnowledgeGraph } = require('./fixtures/knowledge-graph.js');

const SIZES = (process.env.BENCH_KNOWLEDGE_SIZES || '100000,1000000').split(',').map(Number);
const PROJECT = 'bench-k';
const LEAVES_PER_DELETE = 10;
/**
 * Rounds of (baselines, delete) per size, interleaved so drift of the machine hits both alike; the best of each is
 * kept. Default 3 below 1,000,000 nodes, 2 from there (a round there takes about half a minute on 2 cores).
 */
const roundsFor = (size) => Number(process.env.BENCH_KNOWLEDGE_ROUNDS || (size >= 1_000_000 ? 2 : 3));
const LIST_RUNS = 30;

function graphFile(dataDir, project = PROJECT) {
  return path.join(dataDir, 'projects', project, 'knowledge_graph.ndjson');
}

function container(dataDir) {
  require('reflect-metadata');
  const { createTestContainer } = require(path.join(ROOT, 'dist', 'server', 'container.js'));
  const { KnowledgeTokens: Tokens } = require(path.join(ROOT, 'dist', 'modules', 'knowledge', 'index.js'));
  const c = createTestContainer({ dataDir });
  return { c, Tokens };
}

// ---- child processes: one measured operation each, answering {ms, maxRssMb, ...} on stdout ----

/** The baseline: read line by line, parse, drop the ids, stringify, write to a new file (fsync'd when asked). */
async function plainPass(file, ids, fsync) {
  const drop = new Set(ids);
  const tmp = `${file}.plain-${process.pid}`;
  const out = fs.createWriteStream(tmp);
  const rl = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  let kept = 0;
  for await (const line of rl) {
    if (!line) continue;
    const node = JSON.parse(line);
    if (drop.has(node.id)) continue;
    if (node.parents.some((p) => drop.has(p))) node.parents = node.parents.filter((p) => !drop.has(p));
    kept++;
    if (!out.write(JSON.stringify(node) + '\n')) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((resolve, reject) => out.end((e) => (e ? reject(e) : resolve())));
  if (fsync) {
    const fd = fs.openSync(tmp, 'r');
    fs.fsyncSync(fd);
    fs.closeSync(fd);
  }
  fs.rmSync(tmp);
  return { kept };
}

async function child(kind, dataDir, ids) {
  let extra;
  let t0;
  if (kind === 'index') {
    // The search index built from nothing under the lock (what the delete's rebuild after its rewrite does).
    fs.rmSync(path.join(path.dirname(graphFile(dataDir)), 'knowledge_graph.search'), { recursive: true, force: true });
    const { c, Tokens } = container(dataDir);
    const store = c.resolve(Tokens.KnowledgeStore);
    t0 = performance.now();
    await store.withLock(PROJECT, async () => undefined);
    extra = {};
  } else if (kind === 'delete') {
    const { c, Tokens } = container(dataDir);
    const useCase = c.resolve(Tokens.DeleteKnowledgeNodes);
    t0 = performance.now();
    const r = await useCase.execute({ nodeIds: ids, projectContext: PROJECT, reason: 'bench' });
    if (!r.success) throw new Error(`delete_nodes did not succeed: ${JSON.stringify(r).slice(0, 500)}`);
    extra = { backupPath: r.backupPath, deleted: r.deletedNodeIds.length, warnings: r.warnings.length };
  } else {
    t0 = performance.now();
    extra = await plainPass(graphFile(dataDir), ids, kind === 'plain-fsync');
  }
  const ms = performance.now() - t0;
  // maxRSS is in kilobytes.
  process.stdout.write(JSON.stringify({ ms, maxRssMb: process.resourceUsage().maxRSS / 1024, ...extra }) + '\n');
}

function runChild(kind, dataDir, ids) {
  // Flush the dirty pages of the step before (generation, a rebuild, a backup) so that their write-back does not land
  // on the next measurement.
  spawnSync('sync');
  const profile = kind === 'delete' && process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [];
  const r = spawnSync(process.execPath, [...profile, __filename, '--child', kind, dataDir, ...ids], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`${kind} child failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

// ---- the parent ----

async function listFirstPage(dataDir, project) {
  const { c, Tokens } = container(dataDir);
  const useCase = c.resolve(Tokens.ListKnowledgeNodes);
  const samples = [];
  for (let i = 0; i < LIST_RUNS + 3; i++) {
    const t0 = performance.now();
    const r = await useCase.execute({ projectContext: project, limit: 20 });
    const ms = performance.now() - t0;
    if (r.nodes.length !== 20) throw new Error(`list_nodes answered ${r.nodes.length} nodes`);
    if (i >= 3) samples.push(ms); // the first calls warm up the modules
  }
  return stats(samples);
}

async function main() {
  const dataDir = tempDir('wg-bench-knowledge-');
  try {
    await generateKnowledgeGraph(graphFile(dataDir, 'bench-small'), 1_000, { project: 'bench-small' });
    const small = await listFirstPage(dataDir, 'bench-small');
    for (const size of SIZES) {
      const ROUNDS = roundsFor(size);
      const file = graphFile(dataDir);
      const tg = performance.now();
      const { bytes, leaves } = await generateKnowledgeGraph(file, size, { project: PROJECT, leafCount: LEAVES_PER_DELETE * ROUNDS });
      const genMs = performance.now() - tg;
      const batches = [];
      for (let k = 0; k < ROUNDS; k++) batches.push(leaves.filter((_, i) => i % ROUNDS === k).slice(0, LEAVES_PER_DELETE));

      const plain = [];
      const plainFsync = [];
      const deletes = [];
      const indexBuilds = [];
      for (let round = 0; round < ROUNDS; round++) {
        plain.push(runChild('plain', dataDir, batches[round]));
        plainFsync.push(runChild('plain-fsync', dataDir, batches[round]));
        indexBuilds.push(runChild('index', dataDir, []));
        const d = runChild('delete', dataDir, batches[round]);
        if (d.deleted !== LEAVES_PER_DELETE) throw new Error(`deleted ${d.deleted} nodes, expected ${LEAVES_PER_DELETE}`);
        if (d.warnings) throw new Error(`the delete warned (malformed lines or summaries?): ${d.warnings}`);
        fs.rmSync(d.backupPath); // keep the disk use down; pruning is not what is measured
        deletes.push(d);
      }
      const best = (xs, key) => Math.min(...xs.map((x) => x[key]));
      const common = { nodes: size, fileMb: Math.round(bytes / 1e5) / 10, deletedLeaves: LEAVES_PER_DELETE, rounds: ROUNDS };
      const worst = (xs, key) => Math.max(...xs.map((x) => x[key]));
      report('knowledge-delete', `delete_nodes time at ${size} nodes vs plain read-parse-write`, best(deletes, 'ms'), best(plain, 'ms'), 'ms', {
        ...common,
        indexRebuildMs: Math.round(best(indexBuilds, 'ms')),
        load: Math.round(os.loadavg()[0] * 100) / 100,
        goal: 'ratio <= 2',
      });
      // The delete fsyncs (crash safety); the same plain pass with one fsync of its output at the end.
      report('knowledge-delete', `delete_nodes time at ${size} nodes vs plain read-parse-write + fsync`, best(deletes, 'ms'), best(plainFsync, 'ms'), 'ms', common);
      // Each delete ran alone in its own process: the highest of their peaks.
      report('knowledge-delete', `delete_nodes peak RSS at ${size} nodes vs the plain pass`, worst(deletes, 'maxRssMb'), worst(plain, 'maxRssMb'), 'MB', {
        ...common,
        // The index's rebuild alone in a process of its own: how much of the delete's peak is the index's.
        indexRebuildMaxRssMb: Math.round(worst(indexBuilds, 'maxRssMb')),
        goal: size >= 1_000_000 ? 'value < 150 MB' : undefined,
      });
      const list = await listFirstPage(dataDir, PROJECT);
      report('knowledge-delete', `list_nodes first page median at ${size} nodes vs at 1,000 nodes`, list.median, small.median, 'ms', {
        nodes: size,
        p99: Math.round(list.p99 * 1000) / 1000,
        runs: LIST_RUNS,
        goal: 'value < 50 ms',
      });
      console.error(`knowledge-delete: ${size} nodes (${common.fileMb} MB) generated in ${Math.round(genMs)} ms`);
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  const [kind, dataDir, ...ids] = process.argv.slice(3);
  child(kind, dataDir, ids).catch((e) => {
    console.error(e);
    process.exit(1);
  });
} else {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
