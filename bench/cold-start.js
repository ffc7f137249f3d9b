// Cold start: process spawn to the first tools/list answer, workgraph beside the bare SDK echo server, interleaved,
// median of several runs each. Goal: within 1.5x. Two figures per spawn (bench/lib.js coldStartOnce): the server's
// (until the answer arrived) and the SDK client's (plus listTools' compiling of every output schema, which grows with
// the tool list rather than with the server's start). Beside them, the modules each process loaded by then.
const { workgraph, echoServer, stats, report, tempDir, coldStartOnce, loadedModules, CLI, ECHO } = require('./lib.js');

const RUNS = Number(process.env.BENCH_COLD_RUNS || 15);

async function main() {
  const dataDir = tempDir('wg-bench-cold-');
  const runs = { wg: [], echo: [] };
  const start = { wg: () => workgraph(['--data-dir', dataDir]), echo: () => echoServer() };
  for (const s of ['echo', 'wg']) await coldStartOnce(start[s]); // warm the file system cache for both
  // Alternating which goes first, so neither always meets the other's leftovers (page cache, CPU frequency).
  for (let i = 0; i < RUNS; i++) for (const s of i % 2 ? ['echo', 'wg'] : ['wg', 'echo']) runs[s].push(await coldStartOnce(start[s]));
  const median = (s, key) => stats(runs[s].map((r) => r[key])).median;
  report('cold-start', 'spawn to first tools/list answer (server)', median('wg', 'server'), median('echo', 'server'), 'ms', { runs: RUNS, goal: 'ratio <= 1.5' });
  report('cold-start', 'spawn to first tools/list, SDK listTools (answer + client compiles output schemas)', median('wg', 'sdk'), median('echo', 'sdk'), 'ms', {
    runs: RUNS,
    tools: runs.wg[0].tools,
    baselineTools: runs.echo[0].tools,
    goal: 'ratio <= 1.5',
  });
  const wg = await loadedModules([CLI, 'serve', '--data-dir', dataDir]);
  const echo = await loadedModules([ECHO]);
  report('cold-start', 'modules loaded when the first tools/list is answered', wg.modules, echo.modules, 'modules', { own: wg.own, packages: wg.packages, baselinePackages: echo.packages });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
