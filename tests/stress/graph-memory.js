// Issue 9, "Memory and processes": 12 × sum_to_n {n: 450000} through one built server with the default bounds
// (256 MiB of history kept after runs end, 1 GiB per run). Every run must finish with the right sum, and the server's
// RSS (sampled every 250 ms from /proc) must stay under the documented bound (docs/writing-graphs.md "Memory"):
// GRAPH_MEMORY_BOUND_MB, default 1536 (the history kept is bounded at 256 MiB; the rest is V8's heap headroom for
// the garbage a JSONata loop makes, which the kernel does not get back at once). Prints one JSON line; exits 1 when a run fails or the bound is passed.
// Sizes: GRAPH_MEMORY_RUNS (default 12), GRAPH_MEMORY_N (default 450000).
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
const { ROOT, CLI, tempDir, cleanEnv } = require('./lib.js');

const RUNS = Number(process.env.GRAPH_MEMORY_RUNS || 12);
const N = Number(process.env.GRAPH_MEMORY_N || 450000);
const BOUND_MB = Number(process.env.GRAPH_MEMORY_BOUND_MB || 1536);

function rssMb(pid) {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
  } catch {
    return 0;
  }
}

(async () => {
  const dir = tempDir('wg-stress-graph-mem-');
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--data-dir', path.join(dir, 'data'), '--graphs', path.join(ROOT, 'examples/graphs/sum_to_n.yaml')],
    env: cleanEnv(),
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stress-graph-memory', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const pid = transport.pid;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 250);
  const failures = [];
  const perRun = [];
  const expected = (N * (N + 1)) / 2;
  for (let i = 0; i < RUNS; i++) {
    const started = Date.now();
    const r = await client.callTool({ name: 'sum_to_n', arguments: { n: N } }, undefined, { timeout: 30 * 60_000 });
    const sum = r.structuredContent?.sum;
    if (r.isError || sum !== expected) failures.push(`run ${i + 1}: ${r.isError ? r.content[0]?.text : `sum ${sum}, expected ${expected}`}`);
    perRun.push({ s: Math.round((Date.now() - started) / 100) / 10, rssMb: Math.round(rssMb(pid)) });
  }
  clearInterval(sampler);
  peak = Math.max(peak, rssMb(pid));
  if (peak > BOUND_MB) failures.push(`peak RSS ${Math.round(peak)} MiB is over the bound of ${BOUND_MB} MiB`);
  await client.close();
  fs.rmSync(dir, { recursive: true, force: true });
  console.log(
    JSON.stringify({ stress: 'graph-memory', runs: RUNS, n: N, peakRssMb: Math.round(peak), boundMb: BOUND_MB, perRun, ok: failures.length === 0, failures }),
  );
  process.exit(failures.length ? 1 : 0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
