// A graph run drawn live: sum_to_n at n = 10,000 (BENCH_LIVE_N) with the live view's recorder on (the run's record saved
// every 250 ms while it runs, as `serve` does) and a dashboard connected — a real `workgraph dashboard` process over
// the same data dir, with a viewer on its event stream re-reading the run on every change as the run page does —
// beside the same run with neither. Goal: <= 1.2x. Best of BENCH_LIVE_ROUNDS (default 5) interleaved rounds.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { ROOT, tempDir, report } = require('./lib.js');
const { loadGraph } = require(path.join(ROOT, 'dist', 'index.js'));
const { FileGraphRunStore } = require(path.join(ROOT, 'dist', 'modules', 'graph', 'infrastructure', 'file-graph-run-store.js'));

const N = Number(process.env.BENCH_LIVE_N || 10_000);
const ROUNDS = Number(process.env.BENCH_LIVE_ROUNDS || 5);
const GRAPH_FILE = path.join(ROOT, 'examples', 'graphs', 'sum_to_n.yaml');
const CLI = path.join(ROOT, 'dist', 'cli', 'main.js');

function startDashboard(dataDir) {
  const child = spawn(process.execPath, [CLI, 'dashboard', '--port', '0', '--data-dir', dataDir, '--graphs', GRAPH_FILE], {
    env: { ...process.env, WORKGRAPH_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d.toString();
      const m = /(http:\/\/\S+)\?token=(\S+)/.exec(out);
      if (m) resolve({ child, origin: new URL(m[1]).origin, token: decodeURIComponent(m[2]) });
    });
    child.once('exit', (code) => reject(new Error(`dashboard exited with ${code}`)));
  });
}

/** A viewer: the event stream, and on each graph-run event of a run, that run read again (as the page does). */
async function connectViewer(dash) {
  const headers = { Authorization: `Bearer ${dash.token}` };
  const ctl = new AbortController();
  const res = await fetch(`${dash.origin}/api/events`, { headers, signal: ctl.signal });
  const stats = { events: 0, reads: 0, sawRunning: 0 };
  const reader = res.body.getReader();
  let buf = '';
  (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += Buffer.from(value).toString();
      let i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        const chunk = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const data = /^data: (.*)$/m.exec(chunk);
        if (!data) continue;
        const ev = JSON.parse(data[1]);
        if (ev.kind !== 'graph-run' || ev.id === ev.project) continue;
        stats.events++;
        const r = await fetch(`${dash.origin}/api/runs/${ev.id}`, { headers });
        if (r.ok) {
          stats.reads++;
          if ((await r.json()).status === 'running') stats.sawRunning++;
        }
      }
    }
  })().catch(() => undefined);
  return { stats, close: () => ctl.abort() };
}

async function main() {
  const dataDir = tempDir('wg-bench-live-');
  const store = new FileGraphRunStore(dataDir, 20);
  const plain = await loadGraph(GRAPH_FILE);
  const live = await loadGraph(GRAPH_FILE, { runStore: store, liveRecordMs: 250 });
  const dash = await startDashboard(dataDir);
  const viewer = await connectViewer(dash);
  const run = async (host) => {
    const t0 = performance.now();
    const r = await host.executeTool('sum_to_n', { n: N }).promise;
    if (r.result.sum !== (N * (N + 1)) / 2) throw new Error(`wrong sum ${r.result.sum}`);
    return performance.now() - t0;
  };
  await run(plain);
  await run(live);
  let bestLive = Infinity;
  let bestPlain = Infinity;
  for (let i = 0; i < ROUNDS; i++) {
    bestPlain = Math.min(bestPlain, await run(plain));
    bestLive = Math.min(bestLive, await run(live));
    await new Promise((r) => setTimeout(r, 300));
  }
  await new Promise((r) => setTimeout(r, 500));
  report('graph-live', `sum_to_n n=${N}: run time with the live recorder on and a dashboard connected`, bestLive, bestPlain, 'ms', {
    baselineIs: 'no recorder, no dashboard',
    goal: '<= 1.2x',
    viewerEvents: viewer.stats.events,
    viewerReads: viewer.stats.reads,
    viewerReadsOfRunningRuns: viewer.stats.sawRunning,
  });
  viewer.close();
  dash.child.kill('SIGTERM');
  await plain.close();
  await live.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
