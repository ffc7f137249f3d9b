// 16 concurrent SDK clients (StreamableHTTPClientTransport) calling workflow_next for 15 s against the built server
// on --http, beside a bare SDK streamable-HTTP echo server answering the same payload, measured the same way in the
// same run. Goals (issue 14): throughput >= 0.8x the echo server's, p99 <= 2x its p99.
// Interleaved: the 15 s of each side are run as ROUNDS slices alternating echo / workgraph (ABBA order), so a change
// in the machine's load during the run hits both sides alike; the figures pool every slice's samples.
const { performance } = require('node:perf_hooks');
const { workgraphHttp, httpEchoServer, connectHttp, stats, report, tempDir } = require('./lib.js');

const CLIENTS = Number(process.env.BENCH_HTTP_CLIENTS || 16);
const SECONDS = Number(process.env.BENCH_HTTP_SECONDS || 15);
const ROUNDS = Number(process.env.BENCH_HTTP_ROUNDS || 4);

/** One slice: CLIENTS fresh sessions calling `name` for `seconds`; pushes each call's latency into `samples`. */
async function load(url, name, args, seconds, samples) {
  const conns = await Promise.all(Array.from({ length: CLIENTS }, () => connectHttp(url)));
  for (const c of conns) for (let i = 0; i < 20; i++) await c.client.callTool({ name, arguments: args }); // warm-up
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    conns.map(async (c) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const r = await c.client.callTool({ name, arguments: args });
        samples.push(performance.now() - t0);
        if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
      }
    }),
  );
  await Promise.all(conns.map((c) => c.close()));
}

async function main() {
  const dataDir = tempDir('wg-bench-http-');
  const args = { workflowId: 'review-change', completedSteps: [], context: {} };
  const wg = await workgraphHttp(['--data-dir', dataDir]);
  const echo = await httpEchoServer();
  try {
    // The echo answers exactly workflow_next's answer, so both sides move the same bytes.
    const probe = await connectHttp(wg.url);
    const reply = (await probe.client.callTool({ name: 'workflow_next', arguments: args })).structuredContent;
    await probe.close();
    const echoSamples = [];
    const wgSamples = [];
    const slice = SECONDS / ROUNDS;
    for (let r = 0; r < ROUNDS; r++) {
      const sides = [() => load(echo.url, 'echo', { reply }, slice, echoSamples), () => load(wg.url, 'workflow_next', args, slice, wgSamples)];
      if (r % 2 === 1) sides.reverse();
      for (const side of sides) await side();
    }
    const e = { ...stats(echoSamples), perSecond: echoSamples.length / SECONDS };
    const w = { ...stats(wgSamples), perSecond: wgSamples.length / SECONDS };
    const extra = { clients: CLIENTS, seconds: SECONDS, rounds: ROUNDS, interleaved: true };
    report('http', 'workflow_next throughput, 16 clients', w.perSecond, e.perSecond, 'calls/s', { ...extra, goal: 'ratio >= 0.8' });
    report('http', 'workflow_next p50 latency, 16 clients', w.median, e.median, 'ms', extra);
    report('http', 'workflow_next p99 latency, 16 clients', w.p99, e.p99, 'ms', { ...extra, goal: 'ratio <= 2' });
  } finally {
    wg.stop();
    echo.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
