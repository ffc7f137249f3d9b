// 200 idle HTTP sessions (SDK clients connected, their GET streams open, no calls) on the built server with
// --max-sessions 300: the server's RSS beside its RSS with no idle session (goal < 250 MiB), and one active client's
// workflow_next latency beside the same client with no idle session, measured in the same run.
// Interleaved: ROUNDS times, the active client is measured with no idle session, then 200 sessions are opened and it is
// measured again, then they are closed — so both sides see the same machine load; the figures pool every round.
const { performance } = require('node:perf_hooks');
const { workgraphHttp, connectHttp, stats, report, rssMiB, tempDir } = require('./lib.js');

const IDLE = Number(process.env.BENCH_HTTP_IDLE || 200);
const CALLS = Number(process.env.BENCH_HTTP_IDLE_CALLS || 2000);
const ROUNDS = Number(process.env.BENCH_HTTP_IDLE_ROUNDS || 2);
const args = { workflowId: 'review-change', completedSteps: [], context: {} };

async function latency(client, calls, samples) {
  for (let i = 0; i < 100; i++) await client.callTool({ name: 'workflow_next', arguments: args });
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    await client.callTool({ name: 'workflow_next', arguments: args });
    samples.push(performance.now() - t0);
  }
}

const settle = () => new Promise((r) => setTimeout(r, 1000));

async function main() {
  const wg = await workgraphHttp(['--data-dir', tempDir('wg-bench-idle-'), '--max-sessions', '300']);
  try {
    const active = await connectHttp(wg.url);
    const without = [];
    const withIdle = [];
    const rss = { before: [], idle: [] };
    for (let r = 0; r < ROUNDS; r++) {
      await latency(active.client, CALLS / ROUNDS, without);
      await settle();
      rss.before.push(rssMiB(wg.child.pid));
      const idle = [];
      for (let i = 0; i < IDLE; i++) idle.push(await connectHttp(wg.url));
      await settle();
      rss.idle.push(rssMiB(wg.child.pid));
      await latency(active.client, CALLS / ROUNDS, withIdle);
      await Promise.all(idle.map((c) => c.close()));
    }
    const before = stats(without);
    const after = stats(withIdle);
    // RSS: the highest seen with idle sessions, beside the lowest without (the first round's: later ones keep heap).
    const rssIdle = Math.max(...rss.idle);
    const rssBefore = Math.min(...rss.before);
    const extra = { idleSessions: IDLE, calls: CALLS, rounds: ROUNDS, interleaved: true };
    report('http-idle', `server RSS with ${IDLE} idle sessions`, rssIdle, rssBefore, 'MiB', { ...extra, goal: 'value < 250' });
    report('http-idle', `active client median latency with ${IDLE} idle sessions`, after.median, before.median, 'ms', extra);
    report('http-idle', `active client p99 latency with ${IDLE} idle sessions`, after.p99, before.p99, 'ms', extra);
    await active.close();
  } finally {
    wg.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
