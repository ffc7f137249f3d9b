// search_nodes on the NDJSON files (issue 23's figures), through the built store and use cases (dist/), each beside a
// baseline measured in the same run:
//   - the first page of search_nodes (one word, three words, a phrase) beside list_nodes' first page, median (≤ 5×);
//   - the index's size on disk beside the NDJSON's (≤ 1×);
//   - rebuilding the index of BENCH_SEARCH_REBUILD nodes (100,000) beside streaming and parsing the NDJSON once (≤ 5×);
//   - add_nodes throughput (batches of 100) with the index beside (b) the same store with its index's work skipped
//     (a bench-only subclass: the store has no index-off mode, no user needs one) — the honest baseline the ≥ 0.7× bar is
//     judged on: it pays the store's own work (its lock, the pending-marker check, the change event) as the indexed store
//     does — and beside (a) the bare locked, fsynced append of the same JSON lines (the figure reported before);
//   - the peak RSS with the BENCH_SEARCH_NODES-node (1,000,000) indexed project open and searched (< 400 MiB), twice:
//     the built server itself (`serve --data-dir`, stdio, driven by the SDK's client: list_nodes, then each query
//     once; its VmHWM, bench/lib-server-rss.js) — the figure — and beside it the child process below, which
//     holds only the store and the use cases (what the index itself costs, without the server's modules).
// Queries and the child's RSS run in a fresh child process, so its RSS is the store's, not the generator's.
// BENCH_SEARCH_BEFORE_ROOT=<a built checkout>: the same queries also through that build (its own copy of the graph and
// its own index, built by it), interleaved round by round in the same child: each figure gets `before` and `vsBefore`;
// the add figure runs that build's indexed store in the same rounds too (its ratio to (b) as `before`, `vsBefore`).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { ROOT, tempDir, stats, report } = require('./lib.js');
const { generateKnowledgeGraph } = require('./fixtures/knowledge-graph.js');
const { serverPeakRss } = require('./lib-server-rss.js');

const NODES = Number(process.env.BENCH_SEARCH_NODES || 1_000_000);
const REBUILD = Number(process.env.BENCH_SEARCH_REBUILD || 100_000);
const PROJECT = 'bench-k';
const RUNS = Number(process.env.BENCH_SEARCH_RUNS || 15);
const REBUILD_RUNS = Number(process.env.BENCH_SEARCH_REBUILD_RUNS || 5);
// The add_nodes figure's project size before the adds (BENCH_SEARCH_ADD_SEED) and its batches: 500 (50,000 nodes,
// 9.5 MB) include a write of the tail as a segment (8 MiB), so the figure is the steady state's, flushes included.
// Both sides first run BENCH_SEARCH_ADD_WARMUP unmeasured batches (the index's code is cold at first).
const ADD_SEED = Number(process.env.BENCH_SEARCH_ADD_SEED || 20_000);
const ADD_BATCHES = Number(process.env.BENCH_SEARCH_ADD_BATCHES || 500);
const ADD_WARMUP = Number(process.env.BENCH_SEARCH_ADD_WARMUP || 10);
// The store's tail flush policy for the add figure (default: the store's own), to compare policies.
const ADD_FLUSH = process.env.BENCH_SEARCH_FLUSH_NODES ? { nodes: Number(process.env.BENCH_SEARCH_FLUSH_NODES), ...(process.env.BENCH_SEARCH_FLUSH_BYTES ? { bytes: Number(process.env.BENCH_SEARCH_FLUSH_BYTES) } : {}) } : undefined;
// Which figures to measure (comma-separated: rebuild, add, search; default all): BENCH_SEARCH_PARTS=add while iterating.
const QUERIES = [['one word', 'retry'], ['three words', 'retry cache budget'], ['phrase', '"retry backoff"'], ['rare word', 'zyzzyva OR latency -parser']];
const PARTS = new Set((process.env.BENCH_SEARCH_PARTS || 'rebuild,add,search').split(','));
const BEFORE_ROOT = process.env.BENCH_SEARCH_BEFORE_ROOT;
const distOf = (root, p) => require(path.join(root, 'dist', p));
const dist = (p) => distOf(ROOT, p);

function graphFile(dataDir) {
  return path.join(dataDir, 'projects', PROJECT, 'knowledge_graph.ndjson');
}

function dirSize(dir) {
  let n = 0;
  for (const f of fs.readdirSync(dir)) n += fs.statSync(path.join(dir, f)).size;
  return n;
}

async function streamOnce(file) {
  const { forEachLine } = dist('modules/knowledge/infrastructure/line-reader.js');
  const t = performance.now();
  let n = 0;
  await forEachLine(file, (text) => {
    if (text) {
      JSON.parse(text);
      n++;
    }
  });
  return { ms: performance.now() - t, n };
}

/** Builds the index (the first write under the lock finds none) and times it. */
async function buildIndex(dataDir, root = ROOT) {
  const { createNdjsonKnowledgeStore } = distOf(root, 'modules/knowledge/infrastructure/ndjson-knowledge-store.js');
  const store = createNdjsonKnowledgeStore(dataDir);
  const t = performance.now();
  await store.withLock(PROJECT, async () => undefined);
  return performance.now() - t;
}

/** A build's store and use cases over `dataDir`. */
function searchSide(root, dataDir) {
  const store = distOf(root, 'modules/knowledge/infrastructure/ndjson-knowledge-store.js').createNdjsonKnowledgeStore(dataDir);
  const { ListNodes } = distOf(root, 'modules/knowledge/application/use-cases/list-nodes.js');
  const { SearchNodes } = distOf(root, 'modules/knowledge/application/use-cases/search-nodes.js');
  return { list: new ListNodes(store), search: new SearchNodes(store) };
}

async function child(dataDir, beforeDir) {
  require('reflect-metadata');
  const { list, search } = searchSide(ROOT, dataDir);
  const before = beforeDir ? searchSide(BEFORE_ROOT, beforeDir).search : undefined;
  await search.execute({ projectContext: PROJECT, query: 'warm' }).catch(() => undefined);
  await before?.execute({ projectContext: PROJECT, query: 'warm' }).catch(() => undefined);
  // Every round runs list_nodes' first page and then each query once (interleaved: both sides see the same load;
  // with a build before, each query through both, alternating which goes first), 3 unmeasured rounds first; medians
  // of the same rounds.
  const samples = { list: [], ...Object.fromEntries(QUERIES.flatMap(([name]) => [[name, []], [`before ${name}`, []]])) };
  const totals = {};
  const timed = async (key, i, side, query) => {
    const t = performance.now();
    const r = await side.execute({ projectContext: PROJECT, query, limit: 10 });
    if (i >= 3) samples[key].push(performance.now() - t);
    return r;
  };
  for (let i = 0; i < RUNS + 3; i++) {
    const t = performance.now();
    await list.execute({ projectContext: PROJECT, limit: 10 });
    if (i >= 3) samples.list.push(performance.now() - t);
    for (const [name, query] of QUERIES) {
      if (before && i % 2) await timed(`before ${name}`, i, before, query);
      const r = await timed(name, i, search, query);
      if (before && !(i % 2)) await timed(`before ${name}`, i, before, query);
      totals[name] = r.total;
    }
  }
  const out = { load: os.loadavg()[0] };
  for (const [name, a] of Object.entries(samples)) if (a.length) out[name] = { median: stats(a).median, p99: stats(a).p99, matches: totals[name] };
  out.maxRssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify(out) + '\n');
}

/**
 * Bench only, not a mode of the store: the NDJSON store with its search index's work skipped — no index opened, none
 * extended after an append — so the add pays the store's own work (lock, pending-marker check, writer, change event)
 * and the graph's fsynced append, nothing of the index. Baseline (b) of the add figure.
 */
function storeWithoutIndex(dir) {
  const { NdjsonKnowledgeStore } = dist('modules/knowledge/infrastructure/ndjson-knowledge-store.js');
  const view = {};
  const noIndex = { ensureFresh: async () => view, afterAppend: async (_lock, before) => before };
  class StoreWithoutIndex extends NdjsonKnowledgeStore {
    searchIndex() {
      return noIndex;
    }
  }
  return new StoreWithoutIndex(dir);
}

async function addThroughput() {
  const { createNdjsonKnowledgeStore } = dist('modules/knowledge/infrastructure/ndjson-knowledge-store.js');
  const { withFileLock } = dist('kernel/files/file-lock.js');
  const { appendAll } = dist('kernel/files/atomic-write.js');
  const dir = tempDir('wg-bench-search-add-');
  const seedFile = graphFile(dir);
  await generateKnowledgeGraph(seedFile, ADD_SEED, { project: PROJECT });
  const plain = path.join(dir, 'plain');
  fs.mkdirSync(plain, { recursive: true });
  fs.copyFileSync(seedFile, path.join(plain, 'g.ndjson'));
  // The same seed for the store without its index, in a data dir of its own.
  const bareDir = path.join(dir, 'no-index');
  fs.mkdirSync(path.dirname(graphFile(bareDir)), { recursive: true });
  fs.copyFileSync(seedFile, graphFile(bareDir));
  const store = createNdjsonKnowledgeStore(dir, ADD_FLUSH ? { searchFlush: ADD_FLUSH } : {});
  const bareStore = storeWithoutIndex(bareDir);
  await store.withLock(PROJECT, async () => undefined);
  // With BENCH_SEARCH_BEFORE_ROOT, that build's indexed store too, on its own copy of the seed, in the same rounds.
  const beforeDir = path.join(dir, 'before');
  let beforeStore;
  if (BEFORE_ROOT) {
    fs.mkdirSync(path.dirname(graphFile(beforeDir)), { recursive: true });
    fs.copyFileSync(seedFile, graphFile(beforeDir));
    beforeStore = distOf(BEFORE_ROOT, 'modules/knowledge/infrastructure/ndjson-knowledge-store.js').createNdjsonKnowledgeStore(beforeDir, ADD_FLUSH ? { searchFlush: ADD_FLUSH } : {});
    await beforeStore.withLock(PROJECT, async () => undefined);
  }
  let id = 0;
  const batch = () =>
    Array.from({ length: 100 }, () => ({
      id: `add-${id++}`, project: PROJECT, projectContext: PROJECT, thought: 'Retry the parser cache with a budget for the worker queue and review the batch latency.',
      role: 'actor', tags: ['perf'], artifacts: [], parents: [], createdAt: new Date().toISOString(),
    }));
  const BATCHES = ADD_BATCHES;
  let withIndex = 0;
  let before = 0;
  let cpuBefore = 0;
  let noIndex = 0;
  let without = 0;
  let cpuWith = 0;
  let cpuNoIndex = 0;
  let cpuWithout = 0;
  const cpuMs = (from) => {
    const d = process.cpuUsage(from);
    return (d.user + d.system) / 1000;
  };
  // The three sides interleaved, batch by batch, so the machine's load falls on all of them alike.
  for (let i = -ADD_WARMUP; i < BATCHES; i++) {
    if (i === 0) withIndex = before = noIndex = without = cpuWith = cpuBefore = cpuNoIndex = cpuWithout = 0;
    let c;
    let t;
    // This build and the one before alternate which goes first.
    for (const side of i % 2 && beforeStore ? ['before', 'with'] : ['with', 'before']) {
      if (side === 'before' && !beforeStore) continue;
      const a = batch();
      c = process.cpuUsage();
      t = performance.now();
      await (side === 'with' ? store : beforeStore).withLock(PROJECT, (g) => g.append(a));
      if (side === 'with') {
        withIndex += performance.now() - t;
        cpuWith += cpuMs(c);
      } else {
        before += performance.now() - t;
        cpuBefore += cpuMs(c);
      }
    }
    const n = batch();
    c = process.cpuUsage();
    t = performance.now();
    await bareStore.withLock(PROJECT, (g) => g.append(n));
    noIndex += performance.now() - t;
    cpuNoIndex += cpuMs(c);
    const b = batch();
    c = process.cpuUsage();
    t = performance.now();
    await withFileLock(plain, () => appendAll(path.join(plain, 'g.ndjson'), b.map((n) => JSON.stringify(n)).join('\n') + '\n', { ensureNewline: true }));
    without += performance.now() - t;
    cpuWithout += cpuMs(c);
  }
  // How many of the added nodes the run wrote as segments (the tail's flushes, their merges included in the figure).
  const docsOf = (d) => JSON.parse(fs.readFileSync(path.join(path.dirname(graphFile(d)), 'knowledge_graph.search', 'manifest.json'), 'utf8')).docs;
  const manifest = { docs: docsOf(dir) };
  const beforeFlushed = beforeStore ? docsOf(beforeDir) - ADD_SEED : undefined;
  fs.rmSync(dir, { recursive: true, force: true });
  const rate = (ms) => (BATCHES * 100) / (ms / 1000);
  return {
    withIndex: rate(withIndex),
    ...(beforeStore ? { before: rate(before), beforeFlushed, cpuBefore: +(cpuBefore / BATCHES).toFixed(3) } : {}),
    noIndex: rate(noIndex),
    without: rate(without),
    flushedNodes: manifest.docs - ADD_SEED,
    cpuMsPerBatch: { withIndex: +(cpuWith / BATCHES).toFixed(3), noIndex: +(cpuNoIndex / BATCHES).toFixed(3), bare: +(cpuWithout / BATCHES).toFixed(3) },
  };
}

async function main() {
  if (process.argv[2] === '--child') return child(process.argv[3], process.argv[4]);
  if (PARTS.has('rebuild')) await rebuildFigure();
  if (PARTS.has('add')) {
    const add = await addThroughput();
    const load = os.loadavg()[0].toFixed(2);
    // (b) is the bar's baseline: the same store, its index's work skipped. (a): the bare append, as reported before.
    const vs = add.before ? { before: Math.round((add.before / add.noIndex) * 1000) / 1000, vsBefore: Math.round((add.withIndex / add.before) * 1000) / 1000, beforeFlushed: add.beforeFlushed, beforeCpuMsPerBatch: add.cpuBefore } : {};
    report('knowledge-search', `add_nodes throughput (${ADD_BATCHES} batches of 100 onto ${ADD_SEED} nodes) with the index vs (b) the same store without its index`, add.withIndex, add.noIndex, 'nodes/s', { flushedNodes: add.flushedNodes, cpuMsPerBatch: add.cpuMsPerBatch, load, ...vs });
    report('knowledge-search', `add_nodes throughput (${ADD_BATCHES} batches of 100 onto ${ADD_SEED} nodes) with the index vs (a) the bare locked, fsynced append`, add.withIndex, add.without, 'nodes/s', { load });
  }
  if (PARTS.has('search')) await searchFigures();
}

async function rebuildFigure() {
  // Rebuild of REBUILD nodes beside one streaming pass.
  // Medians of REBUILD_RUNS alternating runs in this process: the stream's own time swings with the machine's load.
  const small = tempDir('wg-bench-search-rebuild-');
  await generateKnowledgeGraph(graphFile(small), REBUILD, { project: PROJECT });
  const streams = [];
  const rebuilds = [];
  for (let i = 0; i < REBUILD_RUNS; i++) {
    streams.push((await streamOnce(graphFile(small))).ms);
    fs.rmSync(path.join(small, 'projects', PROJECT, 'knowledge_graph.search'), { recursive: true, force: true });
    rebuilds.push(await buildIndex(small));
  }
  report('knowledge-search', `index rebuild of ${REBUILD} nodes vs streaming the NDJSON once (medians of ${REBUILD_RUNS} alternating)`, stats(rebuilds).median, stats(streams).median, 'ms');
  fs.rmSync(small, { recursive: true, force: true });
}

async function searchFigures() {
  const dataDir = tempDir('wg-bench-search-');
  await generateKnowledgeGraph(graphFile(dataDir), NODES, { project: PROJECT });
  const build = await buildIndex(dataDir);
  const ndjsonBytes = fs.statSync(graphFile(dataDir)).size;
  const indexBytes = dirSize(path.join(dataDir, 'projects', PROJECT, 'knowledge_graph.search'));
  report('knowledge-search', `index size on disk vs the NDJSON (${NODES} nodes)`, indexBytes, ndjsonBytes, 'bytes', { buildMs: Math.round(build) });
  let beforeDir;
  if (BEFORE_ROOT) {
    beforeDir = tempDir('wg-bench-search-before-');
    fs.mkdirSync(path.dirname(graphFile(beforeDir)), { recursive: true });
    fs.copyFileSync(graphFile(dataDir), graphFile(beforeDir));
    await buildIndex(beforeDir, BEFORE_ROOT);
  }
  const r = spawnSync(process.execPath, [__filename, '--child', dataDir, ...(beforeDir ? [beforeDir] : [])], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (beforeDir) fs.rmSync(beforeDir, { recursive: true, force: true });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  const got = JSON.parse(r.stdout.trim().split('\n').pop());
  for (const [name, query] of QUERIES) {
    const g = got[name];
    const b = got[`before ${name}`];
    const vs = b ? { before: b.median, vsBefore: Math.round((g.median / b.median) * 1000) / 1000 } : {};
    report('knowledge-search', `search_nodes first page, ${name} '${query}' (${NODES} nodes) vs list_nodes first page`, g.median, got.list.median, 'ms', { matches: g.matches, p99: g.p99, load: got.load, ...vs });
  }
  // With a build before, the child holds two stores: its RSS is not the figure.
  if (!BEFORE_ROOT) report('knowledge-search', `peak RSS of a process holding only the store and use cases, ${NODES}-node indexed project open and searched`, got.maxRssMb, 400, 'MiB', { load: got.load });
  // The server itself over the same data dir (its index already built above, so the figure is an open, not a rebuild).
  const server = await serverPeakRss(['--data-dir', dataDir], PROJECT, QUERIES);
  report('knowledge-search', `server peak RSS (serve over stdio, SDK client) with the ${NODES}-node indexed project open and searched`, server.peakMb, 400, 'MiB', {
    goal: 'value < 400 MiB', startedMb: Math.round(server.startedMb * 10) / 10, childMb: Math.round(got.maxRssMb * 10) / 10, callsMs: server.calls, matches: server.totals, load: server.load,
  });
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
