// 10,000 sequential tools/call workflow_next through the SDK's real client, beside the bare SDK echo server measured
// the same way in the same run. Goal: median within 1.5x of the echo server's.
const { performance } = require('node:perf_hooks');
const { workgraph, echoServer, stats, report, tempDir } = require('./lib.js');

const N = Number(process.env.BENCH_RPC_CALLS || 10_000);
const WARMUP = 500;

async function measure(client, name, args) {
  for (let i = 0; i < WARMUP; i++) await client.callTool({ name, arguments: args });
  const samples = new Array(N);
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    const r = await client.callTool({ name, arguments: args });
    samples[i] = performance.now() - t0;
    if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  }
  return stats(samples);
}

async function main() {
  const dataDir = tempDir('wg-bench-rpc-');
  const args = { workflowId: 'review-change', completedSteps: [], context: {} };
  const echo = await echoServer();
  const wg = await workgraph(['--data-dir', dataDir]);
  // Interleave rounds so drift of the machine hits both alike.
  const e1 = await measure(echo, 'echo', args);
  const w1 = await measure(wg, 'workflow_next', args);
  const e2 = await measure(echo, 'echo', args);
  const w2 = await measure(wg, 'workflow_next', args);
  // A second baseline: the echo tool answering with exactly workflow_next's answer, so the payload size is the same
  // on both sides and the ratio shows workgraph's own overhead.
  const reply = (await wg.callTool({ name: 'workflow_next', arguments: args })).structuredContent;
  const s1 = await measure(echo, 'echo', { reply });
  const w3 = await measure(wg, 'workflow_next', args);
  const s2 = await measure(echo, 'echo', { reply });
  const echoMedian = Math.min(e1.median, e2.median);
  const wgMedian = Math.min(w1.median, w2.median);
  report('rpc', 'workflow_next median latency', wgMedian, echoMedian, 'ms', { calls: N, goal: 'ratio <= 1.5' });
  report('rpc', 'workflow_next p99 latency', Math.min(w1.p99, w2.p99), Math.min(e1.p99, e2.p99), 'ms', { calls: N });
  report('rpc', 'workflow_next median latency vs an echo of the same answer', Math.min(w1.median, w2.median, w3.median), Math.min(s1.median, s2.median), 'ms', {
    calls: N,
    answerBytes: JSON.stringify(reply).length,
  });
  await echo.close();
  await wg.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
