// 200 idle HTTP sessions (SDK clients connected, their GET streams open, no calls) on the built server with
// --max-sessions 300: the server's RSS beside its RSS with no idle session (goal < 250 MiB), and one active client's
// workflow_next latency beside the same client with no idle session, measured in the same run.
const { performance } = require('node:perf_hooks');
const { workgraphHttp, connectHttp, stats, report, rssMiB, tempDir } = require('./lib.js');

const IDLE = Number(process.env.BENCH_HTTP_IDLE || 200);
const CALLS = Number(process.env.BENCH_HTTP_IDLE_CALLS || 2000);
const args = { workflowId: 'review-change', completedSteps: [], context: {} };

async function latency(client) {
  for (let i = 0; i < 100; i++) await client.callTool({ name: 'workflow_next', arguments: args });
  const samples = [];
  for (let i = 0; i < CALLS; i++) {
    const t0 = performance.now();
    await client.callTool({ name: 'workflow_next', arguments: args });
    samples.push(performance.now() - t0);
  }
  return stats(samples);
}

const settle = () => new Promise((r) => setTimeout(r, 1000));

async function main() {
  const wg = await workgraphHttp(['--data-dir', tempDir('wg-bench-idle-'), '--max-sessions', '300']);
  try {
    const active = await connectHttp(wg.url);
    const before = await latency(active.client);
    await settle();
    const rssBefore = rssMiB(wg.child.pid);
    const idle = [];
    for (let i = 0; i < IDLE; i++) idle.push(await connectHttp(wg.url));
    await settle();
    const rssIdle = rssMiB(wg.child.pid);
    const after = await latency(active.client);
    const extra = { idleSessions: IDLE, calls: CALLS };
    report('http-idle', `server RSS with ${IDLE} idle sessions`, rssIdle, rssBefore, 'MiB', { ...extra, goal: 'value < 250' });
    report('http-idle', `active client median latency with ${IDLE} idle sessions`, after.median, before.median, 'ms', extra);
    report('http-idle', `active client p99 latency with ${IDLE} idle sessions`, after.p99, before.p99, 'ms', extra);
    await Promise.all(idle.map((c) => c.close()));
    await active.close();
  } finally {
    wg.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
