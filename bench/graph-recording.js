// Graph runs recorded in the data dir (for the dashboard and other processes): the engine with recording on, beside the
// same engine without it, on the mcpgraph loop example (sum_to_n) at n = 10,000 (BENCH_RECORDING_N). Recording happens
// off the engine's path (live records on a timer while it runs, the final one after it ended), so the run time should
// barely move (ratio ~1); the time until the final record is on disk is reported beside it. Best of BENCH_RECORDING_ROUNDS (default 7) interleaved rounds.
const fs = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { ROOT, tempDir, report } = require('./lib.js');
const { loadGraph } = require(path.join(ROOT, 'dist', 'index.js'));
const { FileGraphRunStore } = require(path.join(ROOT, 'dist', 'modules', 'graph', 'infrastructure', 'file-graph-run-store.js'));

const N = Number(process.env.BENCH_RECORDING_N || 10_000);
const ROUNDS = Number(process.env.BENCH_RECORDING_ROUNDS || 7);
const GRAPH_FILE = path.join(ROOT, 'examples', 'graphs', 'sum_to_n.yaml');

async function main() {
  const dataDir = tempDir('wg-bench-rec-');
  const store = new FileGraphRunStore(dataDir, 20);
  let saved;
  const recording = {
    save: async (rec) => {
      await store.save(rec);
      // The final record (a run longer than 250 ms is also saved live while it runs).
      if (rec.status !== 'running' && rec.status !== 'paused') saved?.();
    },
    list: (o) => store.list(o),
    get: (id) => store.get(id),
  };
  const plain = await loadGraph(GRAPH_FILE);
  const recorded = await loadGraph(GRAPH_FILE, { runStore: recording, maxRecordedExecutions: 10_000 });
  const run = async (host) => {
    const t0 = performance.now();
    await host.executeTool('sum_to_n', { n: N }).promise;
    return performance.now() - t0;
  };
  await run(plain);
  await run(recorded);
  let best = Infinity;
  let bestPlain = Infinity;
  let bestToDisk = Infinity;
  for (let i = 0; i < ROUNDS; i++) {
    bestPlain = Math.min(bestPlain, await run(plain));
    const onDisk = new Promise((resolve) => (saved = resolve));
    const t0 = performance.now();
    best = Math.min(best, await run(recorded));
    await onDisk;
    bestToDisk = Math.min(bestToDisk, performance.now() - t0);
  }
  const files = fs.readdirSync(path.join(dataDir, 'graph-runs', 'sum_to_n'));
  report('graph-recording', `sum_to_n n=${N}: run time with recording on`, best, bestPlain, 'ms', { baselineIs: 'recording off', runToRecordOnDiskMs: Math.round(bestToDisk), recordsKept: files.filter((f) => !f.includes('summary')).length });
  await plain.close();
  await recorded.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
