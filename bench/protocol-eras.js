// The modern era (2026-07-28) beside the legacy one, same build, same run, alternating rounds (issue 21):
// - workflow_next median/p99 over stdio (a modern and a legacy connection, one server process each) and over HTTP
//   (one server, a modern and a legacy client), goal modern/legacy <= 1.5x; the bare SDK v2 echo server measured the
//   same way gives the SDK's own modern/legacy ratio beside it;
// - stateless HTTP throughput of 16 modern clients against workgraph and against the bare SDK v2 createMcpHandler
//   echo answering the same payload, goal >= 0.8x, p99 <= 2x.
const path = require('node:path');
const { spawn } = require('node:child_process');
const { performance } = require('node:perf_hooks');
const { Client, StreamableHTTPClientTransport } = require('@modelcontextprotocol/client');
const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');
const { CLI, cleanEnv, stats, report, tempDir } = require('./lib.js');

const CALLS = Number(process.env.BENCH_ERA_CALLS || 4000);
const ROUNDS = Number(process.env.BENCH_ERA_ROUNDS || 10);
const WARMUP = Number(process.env.BENCH_ERA_WARMUP || 1000);
const CLIENTS = Number(process.env.BENCH_ERA_CLIENTS || 16);
const SECONDS = Number(process.env.BENCH_ERA_SECONDS || 12);
const ECHO_V2 = path.join(__dirname, 'fixtures', 'echo-v2.js');
const MODERN = { versionNegotiation: { mode: { pin: '2026-07-28' } } };

async function client(transport, modern) {
  const c = new Client({ name: 'bench', version: '1.0.0' }, { capabilities: {}, ...(modern ? MODERN : {}) });
  await c.connect(transport);
  return c;
}

const stdio = (args, modern) => client(new StdioClientTransport({ command: process.execPath, args, env: cleanEnv(), stderr: 'ignore' }), modern);
const overHttp = (url, modern) => client(new StreamableHTTPClientTransport(new URL(url)), modern);

function spawnHttp(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: cleanEnv({ WORKGRAPH_LOG_LEVEL: 'info' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (d) => {
      out += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
      if (m) resolve({ url: m[1], stop: () => child.kill('SIGTERM') });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${out.slice(-800)}`)));
  });
}

async function timeCalls(c, name, args, count, into) {
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const r = await c.callTool({ name, arguments: args });
    into.push(performance.now() - t0);
    if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
  }
}

/** Alternating rounds over `runs` ({ client, name, args, samples }). */
async function latency(runs) {
  for (const r of runs) await timeCalls(r.client, r.name, r.args, WARMUP, []);
  const per = Math.ceil(CALLS / ROUNDS);
  for (let i = 0; i < ROUNDS; i++) for (const r of runs) await timeCalls(r.client, r.name, r.args, per, r.samples);
  return runs.map((r) => stats(r.samples));
}

async function throughput(url, name, args, seconds, samples) {
  const conns = await Promise.all(Array.from({ length: CLIENTS }, () => overHttp(url, true)));
  for (const c of conns) await timeCalls(c, name, args, 20, []);
  const end = performance.now() + seconds * 1000;
  await Promise.all(conns.map(async (c) => {
    while (performance.now() < end) await timeCalls(c, name, args, 1, samples);
  }));
  await Promise.all(conns.map((c) => c.close()));
}

async function main() {
  const args = { workflowId: 'review-change', completedSteps: [], context: {} };
  const serve = ['serve', '--data-dir', tempDir('wg-bench-eras-')];
  // stdio: a legacy and a modern connection to the same build; the SDK echo in both eras beside them.
  const wgLegacy = await stdio([CLI, ...serve], false);
  const wgModern = await stdio([CLI, ...serve], true);
  const reply = (await wgLegacy.callTool({ name: 'workflow_next', arguments: args })).structuredContent;
  const echoLegacy = await stdio([ECHO_V2], false);
  const echoModern = await stdio([ECHO_V2], true);
  const mk = (c, name, a) => ({ client: c, name, args: a, samples: [] });
  const [wl, wm, el, em] = await latency([mk(wgLegacy, 'workflow_next', args), mk(wgModern, 'workflow_next', args), mk(echoLegacy, 'echo', { reply }), mk(echoModern, 'echo', { reply })]);
  report('eras', 'stdio workflow_next median, modern vs legacy', wm.median, wl.median, 'ms', { calls: wm.n, goal: 'ratio <= 1.5', sdkEchoRatio: +(em.median / el.median).toFixed(3) });
  report('eras', 'stdio workflow_next p99, modern vs legacy', wm.p99, wl.p99, 'ms', { sdkEchoRatio: +(em.p99 / el.p99).toFixed(3) });
  for (const c of [wgLegacy, wgModern, echoLegacy, echoModern]) await c.close();

  // HTTP: one server, a legacy and a modern client; the stateless SDK echo beside it.
  const wg = await spawnHttp([CLI, 'serve', '--http', '127.0.0.1:0', '--data-dir', tempDir('wg-bench-eras-http-')]);
  const echo = await spawnHttp([ECHO_V2, '--http']);
  try {
    const hl = await overHttp(wg.url, false);
    const hm = await overHttp(wg.url, true);
    const xl = await overHttp(echo.url, false);
    const xm = await overHttp(echo.url, true);
    const [a, b, c, d] = await latency([mk(hl, 'workflow_next', args), mk(hm, 'workflow_next', args), mk(xl, 'echo', { reply }), mk(xm, 'echo', { reply })]);
    report('eras', 'http workflow_next median, modern vs legacy', b.median, a.median, 'ms', { calls: b.n, goal: 'ratio <= 1.5', sdkEchoRatio: +(d.median / c.median).toFixed(3) });
    report('eras', 'http workflow_next p99, modern vs legacy', b.p99, a.p99, 'ms', { sdkEchoRatio: +(d.p99 / c.p99).toFixed(3) });
    for (const x of [hl, hm, xl, xm]) await x.close();

    // Throughput: 16 modern clients, ABBA slices.
    const wgS = [];
    const echoS = [];
    const slice = SECONDS / 4;
    await throughput(echo.url, 'echo', { reply }, slice, echoS);
    await throughput(wg.url, 'workflow_next', args, slice, wgS);
    await throughput(wg.url, 'workflow_next', args, slice, wgS);
    await throughput(echo.url, 'echo', { reply }, slice, echoS);
    const ws = stats(wgS);
    const es = stats(echoS);
    report('eras', `http modern throughput, ${CLIENTS} clients (vs SDK v2 createMcpHandler echo)`, wgS.length / (SECONDS / 2), echoS.length / (SECONDS / 2), 'calls/s', { goal: 'ratio >= 0.8' });
    report('eras', `http modern p99, ${CLIENTS} clients (vs SDK v2 createMcpHandler echo)`, ws.p99, es.p99, 'ms', { goal: 'ratio <= 2' });
  } finally {
    wg.stop();
    echo.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
