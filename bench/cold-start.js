// Cold start: process spawn to the first tools/list answer, workgraph beside the bare SDK echo server, alternating,
// median of several runs each. Goal: within 1.5x.
const { performance } = require('node:perf_hooks');
const { workgraph, echoServer, stats, report, tempDir } = require('./lib.js');

const RUNS = Number(process.env.BENCH_COLD_RUNS || 15);

async function once(start) {
  const t0 = performance.now();
  const client = await start();
  await client.listTools();
  const elapsed = performance.now() - t0;
  await client.close();
  return elapsed;
}

async function main() {
  const dataDir = tempDir('wg-bench-cold-');
  const wg = [];
  const echo = [];
  await once(() => echoServer()); // warm the file system cache for both
  await once(() => workgraph(['--data-dir', dataDir]));
  for (let i = 0; i < RUNS; i++) {
    echo.push(await once(() => echoServer()));
    wg.push(await once(() => workgraph(['--data-dir', dataDir])));
  }
  report('cold-start', 'spawn to first tools/list', stats(wg).median, stats(echo).median, 'ms', { runs: RUNS, goal: 'ratio <= 1.5' });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
