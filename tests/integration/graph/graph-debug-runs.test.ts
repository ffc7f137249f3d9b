/**
 * The dashboard debugger's runs (GraphDebugRuns over a real GraphHost loaded from a graph file in a temp dir): a
 * breakpoint holds the run before its node with the context that node reads, a step runs exactly one node, resume runs
 * to the same result as a run without the debugger, a paused run left alone is stopped by the idle timeout (logged),
 * and what may not be done is refused with the stable codes.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GraphHost } from '../../../src/modules/graph/infrastructure/graph-host';
import { GraphDebugRuns } from '../../../src/modules/graph/application/services/graph-debug-runs';
import { reachOf } from '../../../src/kernel/reach';
import type { Identity } from '../../../src/kernel/identity';
import type { Logger } from '../../../src/kernel/logger';

const SUM_TO_N = path.resolve(__dirname, '../../../examples/graphs/sum_to_n.yaml');
const alice: Identity = { name: 'alice', scopes: ['read', 'write', 'run'] };
const bob: Identity = { name: 'bob', scopes: ['read', 'write', 'run'] };
const admin: Identity = { name: 'root', scopes: ['read', 'write', 'run', 'admin'] };

let dir: string;
let host: GraphHost;
const logged: Array<{ level: string; msg: string; fields?: Record<string, unknown> }> = [];
const logger: Logger = {
  debug: () => undefined,
  info: (msg, fields) => void logged.push({ level: 'info', msg, fields }),
  warn: (msg, fields) => void logged.push({ level: 'warn', msg, fields }),
  error: () => undefined,
  child: () => logger,
};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-debug-runs-'));
  const file = path.join(dir, 'sum.yaml');
  fs.copyFileSync(SUM_TO_N, file);
  host = new GraphHost();
  await host.load(file);
});

afterAll(async () => {
  await host.runner.stopAll();
  await host.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const until = async (what: () => boolean, label: string): Promise<void> => {
  const end = Date.now() + 10_000;
  while (!what()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${label}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

test('a breakpoint holds the run before its node with its context; a step runs one node; resume ends with the plain result', async () => {
  const runs = new GraphDebugRuns(host, { logger });
  const reach = reachOf(alice);
  const started = await runs.start({ tool: 'sum_to_n', args: { n: 5 }, breakpoints: ['check_condition'], actor: { name: 'alice', client: 'dashboard' } });
  expect(started).toMatchObject({ status: 'paused', currentNode: 'check_condition', executionCount: 2, breakpoints: ['check_condition'], actor: { name: 'alice', client: 'dashboard' } });
  // What check_condition's rule reads: the entry's arguments and increment_node's first output.
  expect(started.context).toEqual({ entry_sum: { n: 5 }, increment_node: { counter: 1, sum: 1, target: 5 } });
  expect(started.history.map((h) => h.nodeId)).toEqual(['entry_sum', 'increment_node']);
  expect(started.idleStopAt).toBeGreaterThan(Date.now());

  // Without the breakpoint, a step runs check_condition alone and holds before the node it chose.
  await runs.setBreakpoints(started.runId, [], reach);
  const stepped = await runs.control(started.runId, 'step', reach);
  expect(stepped).toMatchObject({ status: 'paused', currentNode: 'increment_node', executionCount: 3, breakpoints: [] });
  expect(stepped.history.at(-1)).toMatchObject({ executionIndex: 2, nodeId: 'check_condition', output: 'increment_node' });
  const again = await runs.control(started.runId, 'step', reach);
  expect(again).toMatchObject({ status: 'paused', currentNode: 'check_condition', executionCount: 4 });
  expect(again.context.increment_node).toEqual({ counter: 2, sum: 3, target: 5 });

  await runs.control(started.runId, 'resume', reach);
  await until(() => runs.get(started.runId, reach).status === 'finished', 'the end');
  const plain = await host.executeTool('sum_to_n', { n: 5 }).promise;
  const done = runs.get(started.runId, reach);
  expect(done.result).toEqual(plain.result);
  expect(done.result).toEqual({ sum: 15 });
  expect(done.executionCount).toBe(plain.history.length);

  // Ended: a step is refused naming the status; reading still answers.
  await expect(runs.control(started.runId, 'step', reach)).rejects.toMatchObject({ code: 'invalid_transition', message: expect.stringContaining(`debug run '${started.runId}' is finished; step is not allowed`) });
  await expect(runs.control(started.runId, 'resume', reach)).rejects.toMatchObject({ code: 'invalid_transition' });
});

test('a run paused and left alone is stopped by the idle timeout, and the stop is logged', async () => {
  const runs = new GraphDebugRuns(host, { logger, idleMs: 150 });
  const reach = reachOf(alice);
  const v = await runs.start({ tool: 'sum_to_n', args: { n: 3 }, startPaused: true, actor: { name: 'alice' } });
  expect(v).toMatchObject({ status: 'paused', currentNode: 'entry_sum', executionCount: 0 });
  await until(() => runs.get(v.runId, reach).status === 'stopped', 'the idle stop');
  expect(runs.get(v.runId, reach).error?.code).toBe('cancelled');
  expect(logged).toContainEqual({ level: 'warn', msg: 'debug run stopped: paused and idle', fields: { runId: v.runId, tool: 'sum_to_n', idleMs: 150, node: 'entry_sum' } });
});

test('pause holds a running run, stop ends it stopped; running, a step is refused', async () => {
  const runs = new GraphDebugRuns(host, { logger });
  const reach = reachOf(alice);
  // A long loop (about 3 × 200,000 nodes): running when asked.
  const v = await runs.start({ tool: 'sum_to_n', args: { n: 200_000 }, actor: { name: 'alice' } });
  expect(v.status).toBe('running');
  await expect(runs.control(v.runId, 'step', reach)).rejects.toMatchObject({ code: 'invalid_transition', message: expect.stringContaining('(allowed: pause, stop)') });
  const paused = await runs.control(v.runId, 'pause', reach);
  expect(paused.status).toBe('paused');
  await expect(runs.control(v.runId, 'pause', reach)).rejects.toMatchObject({ code: 'invalid_transition', message: expect.stringContaining('(allowed: resume, step, stop)') });
  const stopped = await runs.control(v.runId, 'stop', reach);
  expect(stopped.status).toBe('stopped');
  expect(logged).toContainEqual({ level: 'info', msg: 'debug run stopped', fields: { runId: v.runId, tool: 'sum_to_n', by: 'alice' } });
});

test("another identity's debug run is not found (admin sees it); unknown ids and nodes are refused", async () => {
  const runs = new GraphDebugRuns(host, { logger });
  const v = await runs.start({ tool: 'sum_to_n', args: { n: 2 }, startPaused: true, actor: { name: 'alice' } });
  expect(() => runs.get(v.runId, reachOf(bob))).toThrow(expect.objectContaining({ code: 'not_found' }));
  await expect(runs.control(v.runId, 'stop', reachOf(bob))).rejects.toMatchObject({ code: 'not_found' });
  expect(runs.get(v.runId, reachOf(admin)).status).toBe('paused');
  expect(() => runs.get('nope', reachOf(alice))).toThrow(expect.objectContaining({ code: 'not_found', message: expect.stringContaining("debug run 'nope' not found on this server") }));
  expect(() => runs.setBreakpoints(v.runId, ['zzz'], reachOf(alice))).toThrow(expect.objectContaining({ code: 'invalid_arguments', message: expect.stringContaining("nodeIds: tool 'sum_to_n' has no node 'zzz'") }));
  await expect(runs.start({ tool: 'sum_to_n', args: {}, breakpoints: ['x'], actor: { name: 'alice' } })).rejects.toMatchObject({ code: 'invalid_arguments' });
  await expect(runs.start({ tool: 'no_such_tool', args: {}, actor: { name: 'alice' } })).rejects.toMatchObject({ code: 'not_found' });
  await runs.control(v.runId, 'stop', reachOf(alice));
});
