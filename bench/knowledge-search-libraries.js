// The search libraries issue 23 names (MiniSearch, FlexSearch, Orama) on the knowledge bench's generated graph
// (BENCH_SEARCH_LIB_NODES, 100,000 nodes), each measured the same way, beside this repository's own index
// (src/modules/knowledge/infrastructure/search-index/) and beside one streaming parse of the same NDJSON (the
// baseline, medians of BENCH_SEARCH_LIB_RUNS passes around the libraries' runs):
//   - build: stream and parse the NDJSON and index every node's thought and tags (ratio against the stream);
//   - heap: V8's heapUsed plus external memory (Buffers) after a full GC with the index held, minus the same before it
//     was built (plus the process's peak RSS);
//   - persisted size: the library's own export (MiniSearch's JSON, FlexSearch's export() keys, Orama's save() as
//     JSON; ours: the segment files) against the NDJSON's size;
//   - load: a fresh process reads the export back into a usable index (ratio against the stream);
//   - a one-word search ('retry', 37 % of the nodes), first page of 10, median of 15 after 3 warm-ups, in the loading
//     process (what a server that opened the project would answer), beside the same search through our index.
// Each library's build and its load run in fresh child processes (`--expose-gc`), so no heap or cache is shared.
// The libraries are devDependencies; nothing in src/ uses them. Linux or macOS; not part of `npm test`.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { ROOT, tempDir, stats, report } = require('./lib.js');
const { generateKnowledgeGraph } = require('./fixtures/knowledge-graph.js');

const NODES = Number(process.env.BENCH_SEARCH_LIB_NODES || 100_000);
const RUNS = Number(process.env.BENCH_SEARCH_LIB_RUNS || 3);
const LIBS = (process.env.BENCH_SEARCH_LIB_ONLY || 'minisearch,flexsearch,flexsearch-ordinal,orama,workgraph').split(',');
const PROJECT = 'bench-k';
const WORD = 'retry';
const SEARCHES = 15;

const graphFile = (dir) => path.join(dir, 'projects', PROJECT, 'knowledge_graph.ndjson');
// Read from the file: minisearch's exports do not expose its package.json.
const version = (pkg) => JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', pkg, 'package.json'), 'utf8')).version;

function dirBytes(dir) {
  let n = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) n += e.isDirectory() ? dirBytes(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).size;
  return n;
}

/** The store's own line reader (the baseline every ratio is against, and how each build reads the graph). */
async function eachNode(file, fn) {
  const { forEachLine } = require(path.join(ROOT, 'dist', 'modules', 'knowledge', 'infrastructure', 'line-reader.js'));
  await forEachLine(file, (text) => {
    if (text) fn(JSON.parse(text));
  });
}

// ---- each library: build(file) → index, persist(index, dir) → bytes, load(dir) → index, search(index) → count ----

/** FlexSearch's Document index over thought and tags; `ordinal`: ids are line numbers, not the nodes' UUIDs. */
function flexsearch(ordinal) {
  const make = () => new (require('flexsearch').Document)({ document: { id: 'id', index: ['thought', 'tags'] } });
  return {
    version: () => version('flexsearch'),
    async build(file) {
      const index = make();
      let line = 0;
      await eachNode(file, (n) => index.add({ id: ordinal ? line++ : n.id, thought: n.thought, tags: n.tags.join(' ') }));
      return index;
    },
    async persist(index, dir) {
      // export() hands over the index as keyed parts (registry, per-field maps, contexts), each whole; a file each.
      const out = path.join(dir, 'flexsearch');
      fs.mkdirSync(out, { recursive: true });
      let bytes = 0;
      let parts = 0;
      await index.export((key, data) => {
        if (data === undefined || data === null) return;
        fs.writeFileSync(path.join(out, key), data);
        bytes += Buffer.byteLength(data);
        parts++;
      });
      return { bytes, parts };
    },
    /**
     * Incremental persistence, checked: 100 more nodes added, exported again, and the parts compared with the first
     * export — the bytes a store would have to rewrite (changed or new parts) to persist that add.
     */
    async rewrittenAfterAdd(index, dir) {
      for (let i = 0; i < 100; i++) index.add({ id: ordinal ? 10_000_000 + i : `added-${i}`, thought: 'Retry the parser cache with a budget for the worker queue.', tags: 'perf' });
      const first = path.join(dir, 'flexsearch');
      let bytes = 0;
      let parts = 0;
      await index.export((key, data) => {
        if (data === undefined || data === null) return;
        const file = path.join(first, key);
        if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== data) {
          bytes += Buffer.byteLength(data);
          parts++;
        }
      });
      return { bytes, parts };
    },
    load(dir) {
      const index = make();
      const from = path.join(dir, 'flexsearch');
      for (const key of fs.readdirSync(from)) index.import(key, fs.readFileSync(path.join(from, key), 'utf8'));
      return index;
    },
    search(index) {
      // Per field, ids in FlexSearch's own order (no BM25: contextual rank); the page merges them.
      const perField = index.search(WORD, { limit: 10 });
      const ids = new Set(perField.flatMap((f) => f.result));
      return { page: Math.min(10, ids.size) };
    },
  };
}

const adapters = {
  minisearch: {
    version: () => version('minisearch'),
    options: { idField: 'id', fields: ['thought', 'tags'], extractField: (doc, f) => (f === 'tags' ? doc.tags.join(' ') : doc[f]) },
    async build(file) {
      const MiniSearch = require('minisearch');
      const index = new MiniSearch(this.options);
      await eachNode(file, (n) => index.add({ id: n.id, thought: n.thought, tags: n.tags }));
      return index;
    },
    persist(index, dir) {
      const text = JSON.stringify(index);
      fs.writeFileSync(path.join(dir, 'minisearch.json'), text);
      return Buffer.byteLength(text);
    },
    load(dir) {
      return require('minisearch').loadJSON(fs.readFileSync(path.join(dir, 'minisearch.json'), 'utf8'), this.options);
    },
    search(index) {
      // MiniSearch answers every match, ranked; the page is the first 10 of them.
      const all = index.search(WORD);
      return { page: all.slice(0, 10).length, matches: all.length };
    },
  },
  flexsearch: flexsearch(false),
  // The same with the node's ordinal (its line) as FlexSearch's id instead of its UUID: FlexSearch's best case (a
  // number per posting, not a string; mapping ordinals back to nodes would be the server's, not counted here).
  'flexsearch-ordinal': flexsearch(true),
  orama: {
    version: () => version('@orama/orama'),
    schema: { id: 'string', thought: 'string', tags: 'string[]' },
    async build(file) {
      const { create, insert } = require('@orama/orama');
      const index = create({ schema: this.schema });
      // Orama's insert is synchronous when no hook is async (none here): a promise would mean the figure is wrong.
      await eachNode(file, (n) => {
        if (typeof insert(index, { id: n.id, thought: n.thought, tags: n.tags }) !== 'string') throw new Error('orama insert went async');
      });
      return index;
    },
    persist(index, dir) {
      const text = JSON.stringify(require('@orama/orama').save(index));
      fs.writeFileSync(path.join(dir, 'orama.json'), text);
      return Buffer.byteLength(text);
    },
    load(dir) {
      const { create, load } = require('@orama/orama');
      const index = create({ schema: this.schema });
      load(index, JSON.parse(fs.readFileSync(path.join(dir, 'orama.json'), 'utf8')));
      return index;
    },
    async search(index) {
      const r = await require('@orama/orama').search(index, { term: WORD, properties: ['thought', 'tags'], limit: 10 });
      return { page: r.hits.length, matches: r.count };
    },
  },
  // This repository's index: the built store (dist/), its segments on disk; "load" opens the project (doc tables and
  // directories read; postings stay on disk) through the first search.
  workgraph: {
    version: () => require(path.join(ROOT, 'package.json')).version,
    modules() {
      require('reflect-metadata');
      require(path.join(ROOT, 'dist', 'modules', 'knowledge', 'application', 'use-cases', 'search-nodes.js'));
    },
    store(dataDir) {
      return require(path.join(ROOT, 'dist', 'modules', 'knowledge', 'infrastructure', 'ndjson-knowledge-store.js')).createNdjsonKnowledgeStore(dataDir);
    },
    async build(file) {
      const dataDir = path.resolve(path.dirname(file), '..', '..');
      fs.rmSync(path.join(path.dirname(file), 'knowledge_graph.search'), { recursive: true, force: true });
      const store = this.store(dataDir);
      await store.withLock(PROJECT, async () => undefined); // the first write under the lock builds the index
      return { store, dataDir };
    },
    persist(index) {
      return dirBytes(path.join(index.dataDir, 'projects', PROJECT, 'knowledge_graph.search'));
    },
    async load(_dir, file) {
      const dataDir = path.resolve(path.dirname(file), '..', '..');
      const { SearchNodes } = require(path.join(ROOT, 'dist', 'modules', 'knowledge', 'application', 'use-cases', 'search-nodes.js'));
      const search = new SearchNodes(this.store(dataDir));
      await search.execute({ projectContext: PROJECT, query: WORD, limit: 10 });
      return search;
    },
    async search(index) {
      const r = await index.execute({ projectContext: PROJECT, query: WORD, limit: 10 });
      return { page: r.hits.length, matches: r.total };
    },
  },
};

// ---- child processes ----

const loadModules = (lib) => (lib === 'workgraph' ? adapters.workgraph.modules() : require(lib === 'orama' ? '@orama/orama' : lib.split('-')[0]));

/** What the process holds after a full GC: V8's heap and the memory outside it (Buffers: our doc tables are). */
const heapMb = () => {
  global.gc();
  global.gc();
  const m = process.memoryUsage();
  return (m.heapUsed + m.external) / 2 ** 20;
};

async function buildChild(lib, file, outDir) {
  const a = adapters[lib];
  loadModules(lib); // the modules' load is not the build
  const before = heapMb();
  const t = performance.now();
  const index = await a.build(file);
  const buildMs = performance.now() - t;
  const heap = heapMb() - before;
  const t2 = performance.now();
  const bytes = await a.persist(index, outDir);
  const persistMs = performance.now() - t2;
  // Only FlexSearch exports in parts; MiniSearch's and Orama's exports are one document, rewritten whole.
  const rewritten = a.rewrittenAfterAdd ? await a.rewrittenAfterAdd(index, outDir) : undefined;
  const parts = typeof bytes === 'object' ? bytes.parts : undefined;
  return { buildMs, heapMb: heap, bytes: typeof bytes === 'object' ? bytes.bytes : bytes, parts, rewritten, persistMs, buildMaxRssMb: process.resourceUsage().maxRSS / 1024 };
}

async function loadChild(lib, file, outDir) {
  const a = adapters[lib];
  loadModules(lib);
  const before = heapMb();
  const t = performance.now();
  const index = await a.load(outDir, file);
  const loadMs = performance.now() - t;
  const heap = heapMb() - before;
  const samples = [];
  let got;
  for (let i = 0; i < SEARCHES + 3; i++) {
    const t1 = performance.now();
    got = await a.search(index);
    if (i >= 3) samples.push(performance.now() - t1);
  }
  // FlexSearch neither counts nor ranks by relevance (ids in its own contextual order): its matches, counted apart.
  if (lib.startsWith('flexsearch')) got.matches = new Set(index.search(WORD, { limit: 10 * Number(process.env.BENCH_SEARCH_LIB_NODES || 100_000) }).flatMap((f) => f.result)).size;
  return { loadMs, loadedHeapMb: heap, searchMs: stats(samples).median, ...got, loadMaxRssMb: process.resourceUsage().maxRSS / 1024 };
}

function runChild(kind, lib, file, outDir) {
  const r = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', __filename, '--child', kind, lib, file, outDir], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`${lib} ${kind} failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

// ---- the parent ----

async function streamOnce(file) {
  const t = performance.now();
  let n = 0;
  await eachNode(file, () => n++);
  return performance.now() - t;
}

async function main() {
  const dir = tempDir('wg-bench-search-libs-');
  try {
    const file = graphFile(dir);
    const { bytes: ndjsonBytes } = await generateKnowledgeGraph(file, NODES, { project: PROJECT });
    const streams = [];
    for (let i = 0; i < RUNS; i++) streams.push(await streamOnce(file));
    const rows = [];
    for (const lib of LIBS) {
      const outDir = path.join(dir, `out-${lib}`);
      fs.mkdirSync(outDir, { recursive: true });
      const b = runChild('build', lib, file, outDir);
      streams.push(await streamOnce(file));
      const l = runChild('load', lib, file, outDir);
      streams.push(await streamOnce(file));
      rows.push({ lib, version: adapters[lib].version(), ...b, ...l, load: os.loadavg()[0] });
      fs.rmSync(outDir, { recursive: true, force: true });
    }
    const stream = stats(streams).median;
    // The searches' baseline: this repository's index's same search, when measured.
    const ours = rows.find((r) => r.lib === 'workgraph');
    for (const r of rows) {
      const common = { library: r.lib, version: r.version, nodes: NODES, load: Math.round(r.load * 100) / 100 };
      report('knowledge-search-libraries', `${r.lib} build of ${NODES} nodes (stream, parse, index) vs streaming the NDJSON once`, r.buildMs, stream, 'ms', { ...common, heapMb: Math.round(r.heapMb * 10) / 10, buildMaxRssMb: Math.round(r.buildMaxRssMb) });
      report('knowledge-search-libraries', `${r.lib} persisted index vs the NDJSON (${NODES} nodes)`, r.bytes, ndjsonBytes, 'bytes', { ...common, persistMs: Math.round(r.persistMs), ...(r.parts ? { parts: r.parts } : {}), ...(r.rewritten ? { afterAdding100: { rewrittenBytes: r.rewritten.bytes, parts: r.rewritten.parts } } : {}) });
      report('knowledge-search-libraries', `${r.lib} load of the persisted index vs streaming the NDJSON once`, r.loadMs, stream, 'ms', { ...common, loadedHeapMb: Math.round(r.loadedHeapMb * 10) / 10, loadMaxRssMb: Math.round(r.loadMaxRssMb) });
      if (ours) report('knowledge-search-libraries', `${r.lib} one-word search '${WORD}', first page of 10 (median of ${SEARCHES}) vs the same through workgraph's index`, r.searchMs, ours.searchMs, 'ms', { ...common, matches: r.matches, page: r.page });
      else report('knowledge-search-libraries', `${r.lib} one-word search '${WORD}', first page of 10 (median of ${SEARCHES}) vs streaming the NDJSON once`, r.searchMs, stream, 'ms', { ...common, matches: r.matches, page: r.page });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  const [kind, lib, file, outDir] = process.argv.slice(3);
  (kind === 'build' ? buildChild : loadChild)(lib, file, outDir)
    .then((r) => process.stdout.write(JSON.stringify(r) + '\n'))
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
} else {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
