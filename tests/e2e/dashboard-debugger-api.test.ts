/**
 * The dashboard debugger's HTTP API, end to end against the built `workgraph dashboard`: a read-only dashboard offers
 * none of it (403 read_only, GET included); with --allow-actions a debug run of a served graph tool holds at its
 * breakpoint, steps one node, resumes to its result and is recorded with the dashboard caller as its actor; a stopped
 * run is recorded stopped; unknown runs, a step on a finished run and bad bodies are one-line errors with stable codes.
 */
import { tempDir } from './helpers/server-process';
import { startDashboardProcess, type DashboardProcess } from './helpers/dashboard-process';
import { SUM_TO_N } from './helpers/dashboard-seed';

jest.setTimeout(120_000);

let data: { dir: string; cleanup: () => void };
let readOnly: DashboardProcess;
let dash: DashboardProcess;

async function request(d: DashboardProcess, method: 'GET' | 'POST', p: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${d.origin}/api${p}`, {
    method,
    headers: { Authorization: `Bearer ${d.token}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: await res.json() };
}

async function eventually<T>(fn: () => Promise<T | undefined>, what: string): Promise<T> {
  const end = Date.now() + 30_000;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const oneLine = (m: string) => expect(m).not.toMatch(/\n/);

beforeAll(async () => {
  data = tempDir('wg-dash-debug-');
  [readOnly, dash] = await Promise.all([
    startDashboardProcess({ dataDir: data.dir, args: ['--graphs', SUM_TO_N] }),
    startDashboardProcess({ dataDir: data.dir, args: ['--graphs', SUM_TO_N, '--allow-actions'] }),
  ]);
});

afterAll(async () => {
  await Promise.all([readOnly?.stop(), dash?.stop()]);
  data?.cleanup();
});

test('a read-only dashboard refuses every debugger endpoint with 403 read_only, reading included', async () => {
  const calls: Array<[method: 'GET' | 'POST', path: string, body?: unknown]> = [
    ['POST', '/graphs/sum_to_n/debug', { args: { n: 3 } }],
    ['GET', '/debug/some-run'],
    ['POST', '/debug/some-run/pause', {}],
    ['POST', '/debug/some-run/resume', {}],
    ['POST', '/debug/some-run/step', {}],
    ['POST', '/debug/some-run/stop', {}],
    ['POST', '/debug/some-run/breakpoints', { nodeIds: [] }],
  ];
  for (const [method, p, body] of calls) {
    const r = await request(readOnly, method, p, body);
    expect([p, r.status, r.body.error.code]).toEqual([p, 403, 'read_only']);
    expect(r.body.error.message).toContain('--allow-actions');
  }
  // Nothing was started: the run list stays empty.
  expect((await request(readOnly, 'GET', '/graphs')).body.runs).toEqual([]);
});

test('breakpoint → paused there with its context; step → one node; resume → the result, recorded with the caller', async () => {
  const started = await request(dash, 'POST', '/graphs/sum_to_n/debug', { args: { n: 4 }, breakpoints: ['check_condition'] });
  expect(started.status).toBe(200);
  const runId: string = started.body.runId;
  expect(started.body).toMatchObject({ status: 'paused', currentNode: 'check_condition', executionCount: 2, breakpoints: ['check_condition'], actor: { name: 'local', client: 'dashboard' } });
  expect(started.body.context).toEqual({ entry_sum: { n: 4 }, increment_node: { counter: 1, sum: 1, target: 4 } });

  // The live record says paused at that node for every dashboard of the data dir (the read-only one too).
  await eventually(async () => {
    const r = await request(readOnly, 'GET', `/runs/${runId}`);
    return r.status === 200 && r.body.status === 'paused' && r.body.currentNode === 'check_condition' ? true : undefined;
  }, 'the paused live record');

  // Clear the breakpoint, then one step: check_condition ran alone, the run holds before the node it chose.
  const cleared = await request(dash, 'POST', `/debug/${runId}/breakpoints`, { nodeIds: [] });
  expect(cleared.body.breakpoints).toEqual([]);
  const stepped = await request(dash, 'POST', `/debug/${runId}/step`, {});
  expect(stepped.status).toBe(200);
  expect(stepped.body).toMatchObject({ status: 'paused', currentNode: 'increment_node', executionCount: 3 });
  expect(stepped.body.history.at(-1)).toMatchObject({ nodeId: 'check_condition', output: 'increment_node' });

  const resumed = await request(dash, 'POST', `/debug/${runId}/resume`, {});
  expect(resumed.status).toBe(200);
  const done = await eventually(async () => {
    const r = await request(dash, 'GET', `/debug/${runId}`);
    return r.body.status === 'finished' ? r.body : undefined;
  }, 'the end of the run');
  expect(done.result).toEqual({ sum: 10 });

  // Recorded like any run: completed, its result, the dashboard's caller as its actor.
  const record = await eventually(async () => {
    const r = await request(dash, 'GET', `/runs/${runId}`);
    return r.body.status === 'completed' ? r.body : undefined;
  }, 'the final record');
  expect(record).toMatchObject({ result: { sum: 10 }, actor: { name: 'local', client: 'dashboard' }, nodeExecutions: done.executionCount });

  // A step on the finished run: 409, saying it is finished.
  const late = await request(dash, 'POST', `/debug/${runId}/step`, {});
  expect(late.status).toBe(409);
  expect(late.body.error).toEqual({ code: 'invalid_transition', message: `debug run '${runId}' is finished; step is not allowed from finished (no further calls are allowed)` });
});

test('stop ends a paused run stopped, and it is recorded stopped', async () => {
  const started = await request(dash, 'POST', '/graphs/sum_to_n/debug', { args: { n: 50 }, startPaused: true });
  expect(started.body).toMatchObject({ status: 'paused', currentNode: 'entry_sum', executionCount: 0 });
  const runId: string = started.body.runId;
  const stopped = await request(dash, 'POST', `/debug/${runId}/stop`, {});
  expect(stopped.status).toBe(200);
  expect(stopped.body).toMatchObject({ status: 'stopped', error: { code: 'cancelled' } });
  const record = await eventually(async () => {
    const r = await request(dash, 'GET', `/runs/${runId}`);
    return r.body.status === 'stopped' ? r.body : undefined;
  }, 'the stopped record');
  expect(record.nodeExecutions).toBe(0);
  expect((await request(dash, 'POST', `/debug/${runId}/resume`, {})).body.error.code).toBe('invalid_transition');
});

test('unknown runs 404, bad bodies and unknown nodes 400, a step on a running run 409: each one line naming what is wrong', async () => {
  const unknown = await request(dash, 'GET', '/debug/no-such-run');
  expect(unknown.status).toBe(404);
  expect(unknown.body.error.code).toBe('not_found');
  expect(unknown.body.error.message).toContain("debug run 'no-such-run' not found on this server");
  oneLine(unknown.body.error.message);
  expect((await request(dash, 'POST', '/debug/no-such-run/step', {})).status).toBe(404);

  const bad: Array<[unknown, string]> = [
    [{ args: {}, breakpoints: 'check_condition' }, 'breakpoints: expected an array of node ids (strings)'],
    [{ args: {}, startPaused: 'yes' }, 'startPaused: expected a boolean'],
    [{ args: {}, breakpoint: ['x'] }, 'breakpoint: not a field of a debug start (expected args, breakpoints, startPaused)'],
    [{ args: {}, breakpoints: ['nowhere'] }, "breakpoints: tool 'sum_to_n' has no node 'nowhere'"],
  ];
  for (const [body, message] of bad) {
    const r = await request(dash, 'POST', '/graphs/sum_to_n/debug', body);
    expect([r.status, r.body.error.code]).toEqual([400, 'invalid_arguments']);
    expect(r.body.error.message).toContain(message);
    oneLine(r.body.error.message);
  }
  expect((await request(dash, 'POST', '/graphs/no_such_tool/debug', { args: {} })).status).toBe(404);

  // A long run, running: step is refused (pause first), pause holds it, stop ends it.
  const running = await request(dash, 'POST', '/graphs/sum_to_n/debug', { args: { n: 300_000 } });
  expect(running.body.status).toBe('running');
  const step = await request(dash, 'POST', `/debug/${running.body.runId}/step`, {});
  expect(step.status).toBe(409);
  expect(step.body.error.message).toMatch(/^debug run '.+' is running; step is not allowed from running \(allowed: pause, stop\)$/);
  expect((await request(dash, 'POST', `/debug/${running.body.runId}/pause`, {})).body.status).toBe('paused');
  expect((await request(dash, 'POST', `/debug/${running.body.runId}/breakpoints`, { nodeIds: ['zzz'] })).body.error.message).toContain("nodeIds: tool 'sum_to_n' has no node 'zzz'");
  expect((await request(dash, 'POST', `/debug/${running.body.runId}/stop`, {})).body.status).toBe('stopped');
});

test('a dashboard stopped (SIGTERM) with a debug run paused records it stopped before it exits: no run left "paused" for ever', async () => {
  const started = await request(dash, 'POST', '/graphs/sum_to_n/debug', { args: { n: 5 }, breakpoints: ['check_condition'] });
  expect(started.body.status).toBe('paused');
  const runId: string = started.body.runId;
  await eventually(async () => ((await request(readOnly, 'GET', `/runs/${runId}`)).body.status === 'paused' ? true : undefined), 'the paused live record');
  await dash.stop();
  expect(dash.child.exitCode).toBe(0);
  // Read through the dashboard still running over the same data dir, at once: the final record was written before exit.
  const record = await request(readOnly, 'GET', `/runs/${runId}`);
  expect(record.body).toMatchObject({ status: 'stopped', nodeExecutions: 2, runError: { code: 'cancelled' } });
});
