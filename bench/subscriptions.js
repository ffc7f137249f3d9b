// One client's resource subscriptions must not slow another client down (issue 20: 20,000 subscriptions to absent
// sessions made another client's calls 60x slower and doubled the RSS). On the built server over HTTP (one process,
// two sessions): the active client's workflow_start latency — each call writes a new session into sessions/, the very
// folder the absent sessions are watched from — with 0 subscriptions open beside it, then with SUBS (default 1,000,
// the default cap) held by another session, and the server's RSS in both states.
// Interleaved: ROUNDS times, measured without, then the other session subscribes, measured with, then it
// unsubscribes — both sides see the same machine load; the figures pool every round.
// BENCH_SUBS_CLI=/path/to/other/dist/cli/main.js measures another build (say, the one before the fix).
const fs = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { CLI, connectHttp, stats, report, rssMiB, tempDir, spawnHttp, cleanEnv } = require('./lib.js');

// The SDK client adds an abort listener per request to one signal: its MaxListeners warning is the client's, not a
// figure of this bench.
process.removeAllListeners('warning');

const SUBS = Number(process.env.BENCH_SUBS || 1000);
const CALLS = Number(process.env.BENCH_SUBS_CALLS || 600);
const ROUNDS = Number(process.env.BENCH_SUBS_ROUNDS || 12);
const cli = process.env.BENCH_SUBS_CLI || CLI;

const absent = (i) => `workgraph://sessions/${i.toString(16).padStart(16, '0')}`;
const settle = () => new Promise((r) => setTimeout(r, 500));

async function latency(client, workspace, calls, samples) {
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    const r = await client.callTool({ name: 'workflow_start', arguments: { workflowId: 'review-change', goal: 'bench', workspacePath: workspace } });
    samples.push(performance.now() - t0);
    if (r.isError) throw new Error(r.content[0].text);
  }
}

/** `n` requests, 50 in flight at a time (subscribing is set-up here, not what is measured). */
async function inBatches(n, one) {
  for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, j) => one(i + j)));
}

async function main() {
  const tmp = tempDir('wg-bench-subs-');
  const workspace = path.join(tmp, 'work');
  fs.mkdirSync(workspace);
  const wg = await spawnHttp(
    [cli, 'serve', '--http', '127.0.0.1:0', '--data-dir', path.join(tmp, 'data'), '--allow-root', tmp, ...(cli === CLI ? ['--max-subscriptions', String(SUBS)] : [])],
    cleanEnv({ WORKGRAPH_LOG_LEVEL: 'info' }),
  );
  try {
    const active = await connectHttp(wg.url);
    const subscriber = await connectHttp(wg.url);
    // Warm up (and create sessions/, so the absent sessions are watched from it).
    await latency(active.client, workspace, 50, []);
    const without = [];
    const withSubs = [];
    const rss = { without: [], with: [] };
    for (let r = 0; r < ROUNDS; r++) {
      await latency(active.client, workspace, CALLS / ROUNDS, without);
      await settle();
      rss.without.push(rssMiB(wg.child.pid));
      await inBatches(SUBS, (i) => subscriber.client.subscribeResource({ uri: absent(i) }));
      await latency(active.client, workspace, CALLS / ROUNDS, withSubs);
      await settle();
      rss.with.push(rssMiB(wg.child.pid));
      await inBatches(SUBS, (i) => subscriber.client.unsubscribeResource({ uri: absent(i) }));
    }
    const before = stats(without);
    const after = stats(withSubs);
    const extra = { subscriptions: SUBS, calls: CALLS, rounds: ROUNDS, interleaved: true, build: cli === CLI ? 'this' : cli };
    report('subscriptions', `other client's workflow_start median latency with ${SUBS} subscriptions open`, after.median, before.median, 'ms', { ...extra, goal: 'ratio <= 1.2' });
    report('subscriptions', `other client's workflow_start p99 latency with ${SUBS} subscriptions open`, after.p99, before.p99, 'ms', extra);
    // RSS: the median over rounds of each state (the heap grows over the first rounds whatever the state).
    report('subscriptions', `server RSS with ${SUBS} subscriptions open`, stats(rss.with).median, stats(rss.without).median, 'MiB', extra);
    await subscriber.close();
    await active.close();
  } finally {
    wg.stop();
    setTimeout(() => fs.rmSync(tmp, { recursive: true, force: true }), 500).unref();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
