// What the three layers workgraph writes beside the SDK's v2 cost against the SDK's own path, in one process, the same
// work on both sides, alternating rounds (docs/architecture.md "Beside the SDK"):
//
// 1. the stdio line transport (dist/server/line-transport.js) against the SDK's StdioServerTransport: N tools/call
//    lines written into a stream, until every message is delivered;
// 2. the tools/call envelope check (the server's fallback handler + tool-call-params.ts) against the SDK's
//    setRequestHandler('tools/call') (zod parse of the request, then of the result): N calls on a low-level Server,
//    each answered with workflow_next's answer, from the request entering the transport to the response sent;
// 3. known-JSON serialization (known-json.ts) against JSON.stringify of the same answer message.
const { PassThrough } = require('node:stream');
const { performance } = require('node:perf_hooks');
const path = require('node:path');
const { Server } = require('@modelcontextprotocol/server');
const { StdioServerTransport } = require('@modelcontextprotocol/server/stdio');
const { stats, report, ROOT } = require('./lib.js');

const dist = (p) => require(path.join(ROOT, 'dist', p));
const { LineTransport } = dist('server/line-transport.js');
const { toolCallParams } = dist('server/tool-call-params.js');
const { rememberJson, stringifyMessage } = dist('server/known-json.js');

const N = Number(process.env.BENCH_LAYER_N || 5000);
const ROUNDS = Number(process.env.BENCH_LAYER_ROUNDS || 10);

// A realistic answer: about workflow_next's size (3 KB of structured content, the same JSON as text).
const value = {
  workflowId: 'review-change',
  step: { id: 'read-diff', title: 'Read the diff', prompt: 'x'.repeat(1800), requireConfirmation: false },
  completedSteps: ['a', 'b', 'c'],
  isComplete: false,
  guidance: { prompt: 'y'.repeat(600), notes: ['one', 'two', 'three'] },
};
const request = (id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'workflow_next', arguments: { workflowId: 'review-change', completedSteps: [], context: {} } } });

async function lines(makeTransport) {
  const input = new PassThrough();
  const output = new PassThrough();
  output.resume();
  const t = makeTransport(input, output);
  let got = 0;
  let done;
  t.onmessage = () => {
    if (++got === N) done();
  };
  await t.start();
  const text = Array.from({ length: N }, (_, i) => JSON.stringify(request(i))).join('\n') + '\n';
  const finished = new Promise((r) => (done = r));
  const t0 = performance.now();
  input.write(text);
  await finished;
  const ms = performance.now() - t0;
  await t.close();
  return ms / N;
}

function server(ours) {
  const s = new Server({ name: 'bench', version: '1' }, { capabilities: { tools: {} } });
  const answer = () => {
    const json = JSON.stringify(value);
    return { content: [{ type: 'text', text: json }], structuredContent: value };
  };
  if (ours) {
    s.fallbackRequestHandler = async (req) => {
      toolCallParams(req.params);
      return answer();
    };
  } else {
    s.setRequestHandler('tools/call', async () => answer());
  }
  return s;
}

async function calls(ours) {
  const s = server(ours);
  let resolve;
  const transport = {
    start: async () => undefined,
    close: async () => undefined,
    send: async () => resolve(),
  };
  await s.connect(transport);
  // The SDK answers tools/call only after initialize (its era is the handshake era then).
  await new Promise((r) => {
    resolve = r;
    transport.onmessage({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'b', version: '1' } } });
  });
  const samples = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await new Promise((r) => {
      resolve = r;
      transport.onmessage(request(i));
    });
    samples.push(performance.now() - t0);
  }
  await s.close();
  return samples;
}

function serialize(known) {
  const samples = [];
  for (let i = 0; i < N; i++) {
    const structured = JSON.parse(JSON.stringify(value));
    const text = JSON.stringify(structured);
    if (known) rememberJson(structured, text);
    const message = { result: { content: [{ type: 'text', text }], structuredContent: structured }, jsonrpc: '2.0', id: i };
    const t0 = performance.now();
    const line = known ? stringifyMessage(message) : JSON.stringify(message);
    samples.push(performance.now() - t0);
    if (line.length < 100) throw new Error('short line');
  }
  return samples;
}

async function main() {
  const ours = { lines: [], calls: [], json: [] };
  const sdk = { lines: [], calls: [], json: [] };
  // Warm-up, then alternating rounds.
  await lines((i, o) => new LineTransport(i, o));
  await lines((i, o) => new StdioServerTransport(i, o));
  await calls(true);
  await calls(false);
  for (let r = 0; r < ROUNDS; r++) {
    ours.lines.push(await lines((i, o) => new LineTransport(i, o)));
    sdk.lines.push(await lines((i, o) => new StdioServerTransport(i, o)));
    ours.calls.push(...(await calls(true)));
    sdk.calls.push(...(await calls(false)));
    ours.json.push(...serialize(true));
    sdk.json.push(...serialize(false));
  }
  report('layers', 'stdio line transport, ms per line read (vs StdioServerTransport)', stats(ours.lines).median, stats(sdk.lines).median, 'ms', { lines: N * ROUNDS });
  report('layers', 'tools/call envelope check, median per call (vs setRequestHandler tools/call)', stats(ours.calls).median, stats(sdk.calls).median, 'ms', { calls: ours.calls.length });
  report('layers', 'tools/call envelope check, p99 per call', stats(ours.calls).p99, stats(sdk.calls).p99, 'ms', { calls: ours.calls.length });
  report('layers', 'known-JSON answer line, median (vs JSON.stringify)', stats(ours.json).median, stats(sdk.json).median, 'ms', { answers: ours.json.length, answerBytes: JSON.stringify(value).length });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
