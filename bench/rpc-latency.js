// 10,000 sequential tools/call workflow_next through the SDK's real client, beside the bare SDK v2 echo server
// (bench/fixtures/echo-v2.js, `serveStdio`) measured the same way in the same run. Goal: median within 1.5x of the echo server's.
//
// Each server first gets a warm-up (the JIT settles after a few thousand calls); then the calls are made in short
// rounds that alternate between the servers, so a change in the machine's load hits all of them alike. The figures are
// the median and p99 of all samples of each server.
const { performance } = require('node:perf_hooks');
const { workgraph, echoServer, stats, report, tempDir } = require('./lib.js');

const N = Number(process.env.BENCH_RPC_CALLS || 10_000);
const ROUNDS = Number(process.env.BENCH_RPC_ROUNDS || 20);
const WARMUP = 3000;

async function timeCalls(client, name, args, count, into) {
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const r = await client.callTool({ name, arguments: args });
    into.push(performance.now() - t0);
    if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  }
}

async function main() {
  const dataDir = tempDir('wg-bench-rpc-');
  const args = { workflowId: 'review-change', completedSteps: [], context: {} };
  const echo = await echoServer();
  const wg = await workgraph(['--data-dir', dataDir]);
  // A second baseline: the echo tool answering with exactly workflow_next's answer, so the payload size is the same
  // on both sides and the ratio shows workgraph's own overhead.
  const reply = (await wg.callTool({ name: 'workflow_next', arguments: args })).structuredContent;
  const runs = [
    { label: 'echo', client: echo, name: 'echo', args, samples: [] },
    { label: 'workflow_next', client: wg, name: 'workflow_next', args, samples: [] },
    { label: 'echo of the same answer', client: echo, name: 'echo', args: { reply }, samples: [] },
  ];
  for (const r of runs) await timeCalls(r.client, r.name, r.args, WARMUP, []);
  const perRound = Math.ceil(N / ROUNDS);
  for (let round = 0; round < ROUNDS; round++) for (const r of runs) await timeCalls(r.client, r.name, r.args, perRound, r.samples);
  const [e, w, s] = runs.map((r) => stats(r.samples));
  report('rpc', 'workflow_next median latency', w.median, e.median, 'ms', { calls: w.n, goal: 'ratio <= 1.5' });
  report('rpc', 'workflow_next p99 latency', w.p99, e.p99, 'ms', { calls: w.n });
  report('rpc', 'workflow_next median latency vs an echo of the same answer', w.median, s.median, 'ms', {
    calls: w.n,
    answerBytes: JSON.stringify(reply).length,
  });
  await echo.close();
  await wg.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
