// MCP Apps graph run view kept live (docs/mcp-apps.md "A graph run still going"): what the view pays per change of a
// long run. A view polls resource_changes for workgraph://graph/runs/<id> and, on a change, reads with graph_inspect
// only the executions after the newest it has (here: the run's last 10) instead of the page it was handed again (1,000
// executions). One run of sum_to_n (BENCH_RUN_N, default 2,000: ~6,000 executions) through the built server over stdio
// (the SDK v2 client declaring the extension, as a host), read by the process that ran it (its engine) and by a second
// process on the same data dir (the run store's record); medians of BENCH_LIVE_RUNS (default 20), interleaved.
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { ROOT, CLI, tempDir, cleanEnv, stats, report } = require('./lib.js');

const RUNS = Number(process.env.BENCH_LIVE_RUNS || 20);
const N = Number(process.env.BENCH_RUN_N || 2000);
const SUM_TO_N = path.join(ROOT, 'examples/graphs/sum_to_n.yaml');

async function host(dataDir) {
  const { Client } = require('@modelcontextprotocol/client');
  const { StdioClientTransport } = require('@modelcontextprotocol/client/stdio');
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--graphs', SUM_TO_N], env: { ...cleanEnv(), WORKGRAPH_DATA_DIR: dataDir }, stderr: 'inherit' });
  const client = new Client({ name: 'bench-run-live-host', version: '1' }, { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } } });
  await client.connect(transport);
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, { timeout: 120_000 });
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
    return r;
  };
  return { client, call };
}

async function time(fn) {
  const t = performance.now();
  const r = await fn();
  return { ms: performance.now() - t, bytes: JSON.stringify(r).length };
}

async function main() {
  const dataDir = tempDir('wg-bench-run-live-');
  const a = await host(dataDir);
  const b = await host(dataDir);
  try {
    const run = await a.call('sum_to_n', { n: N });
    const executionId = run._meta['workgraph/executionId'];
    const total = (await a.call('graph_inspect', { executionId, limit: 1 })).structuredContent.historyTotal;
    // The final record is saved just after the answer: wait until the other process reads it.
    for (let i = 0; i < 100; i++) {
      const r = await b.client.callTool({ name: 'graph_inspect', arguments: { executionId, limit: 1 } });
      if (!r.isError && r.structuredContent.status === 'finished') break;
      await new Promise((res) => setTimeout(res, 100));
    }
    const uri = `workgraph://graph/runs/${executionId}`;
    for (const [who, h] of [['its engine', a], ['another process, from the record', b]]) {
      const poll = () => h.call('resource_changes', { resources: [uri] });
      const tail = () => h.call('graph_inspect', { executionId, offset: total - 10, limit: 1000 });
      const page = () => h.call('graph_inspect', { executionId, offset: 0, limit: 1000 });
      await poll();
      await tail();
      await page();
      const s = { poll: [], tail: [], page: [] };
      const bytes = {};
      for (let i = 0; i < RUNS; i++) {
        for (const [k, f] of [['poll', poll], ['tail', tail], ['page', page]]) {
          const m = await time(f);
          s[k].push(m.ms);
          bytes[k] = m.bytes;
        }
      }
      report('mcp-apps-graph-run-live', `${who}, ${total} executions: re-read of the last 10 vs the page of 1,000: bytes`, bytes.tail, bytes.page, 'bytes');
      report('mcp-apps-graph-run-live', `${who}, ${total} executions: re-read of the last 10 vs the page of 1,000: round trip (median of ${RUNS})`, stats(s.tail).median, stats(s.page).median, 'ms');
      report('mcp-apps-graph-run-live', `${who}: poll vs the page of 1,000: round trip (median of ${RUNS})`, stats(s.poll).median, stats(s.page).median, 'ms', { pollBytes: bytes.poll });
    }
  } finally {
    await a.client.close();
    await b.client.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
