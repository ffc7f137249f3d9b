/**
 * A graph tool run as an MCP Apps view with time travel, end to end (tests/e2e/helpers/apps-host: the real built
 * server with examples/graphs/sum_to_n.yaml and a graph with a loop and a branch not taken, the SDK's v2 client as the
 * host, the extension SDK's AppBridge framing the view in headless Chromium): graph_inspect's result drawn as handed
 * (the run's tool as a graph from the result's `_meta` — its nodes, its edges routed by ELK, the run's path marked —
 * and its node executions on the timeline, no tool call); travelling to an execution is a graph_inspect call with its
 * executionIndex, shows what it saw and highlights its node; a result that names an execution shows it without a
 * call. A host without the extension gets graph_inspect's result without that `_meta`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { tempDir } from './helpers/server-process';
import { connectHost, coveredByControls, cutLines, hostView, lowContrast, readsThrough, readViewHtml, until } from './helpers/apps-host';
import { launchBrowser, screenshotPath, type Browser } from '../helpers/browser';

jest.setTimeout(Number(process.env.APPS_TEST_TIMEOUT ?? 180_000));

type Json = Record<string, any>;
const SUM_TO_N = path.resolve(__dirname, '../../examples/graphs/sum_to_n.yaml');
/** A loop (step ⇄ again, n rounds) and a branch a non-negative n never takes (refuse). */
const COUNT_UP = `
version: "1.0"
server: { name: "drawing", version: "1.0.0" }
tools:
  - name: "count_up"
    description: "Counts up to n in a loop; a negative n takes the refusal branch"
    inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] }
    outputSchema: { type: "object", properties: { count: { type: "number" } } }
    nodes:
      - id: "start"
        type: "entry"
        next: "guard"
      - id: "guard"
        type: "switch"
        conditions:
          - rule: { "<": [{ "var": "$.start.n" }, 0] }
            target: "refuse"
          - target: "step"
      - id: "refuse"
        type: "transform"
        transform: { expr: '{ "count": -1 }' }
        next: "done"
      - id: "step"
        type: "transform"
        transform: { expr: '{ "count": $executionCount("step") + 1 }' }
        next: "again"
      - id: "again"
        type: "switch"
        conditions:
          - rule: { "<": [{ "var": "$.step.count" }, { "var": "$.start.n" }] }
            target: "step"
          - target: "finish"
      - id: "finish"
        type: "transform"
        transform: { expr: '{ "count": $.step.count }' }
        next: "done"
      - id: "done"
        type: "exit"
`;
const COUNT_UP_EDGES = 8;
let data: { dir: string; cleanup: () => void };
let graphs: { dir: string; cleanup: () => void };
let host: { client: Client; close: () => Promise<void> };
let plain: { client: Client; close: () => Promise<void> };
let browser: Browser;

async function call(name: string, args: Json): Promise<Json> {
  const r = await host.client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return r as Json;
}

beforeAll(async () => {
  data = tempDir('wg-apps-graph-');
  graphs = tempDir('wg-apps-graph-files-');
  const countUp = path.join(graphs.dir, 'count.yaml');
  fs.writeFileSync(countUp, COUNT_UP);
  const args = ['--graphs', SUM_TO_N, '--graphs', countUp];
  host = await connectHost({ dataDir: data.dir, args });
  plain = await connectHost({ dataDir: data.dir, args, apps: false });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await plain?.close();
  data?.cleanup();
  graphs?.cleanup();
});

test("graph_inspect's result carries the run's graph and path in _meta for a host that shows views, and for no other", async () => {
  const mine = await call('count_up', { n: 3 });
  const inspected = await call('graph_inspect', { executionId: mine._meta['workgraph/executionId'] });
  const g = inspected._meta['workgraph/runGraph'];
  expect(g.tool).toBe('count_up');
  expect(g.nodes.map((n: Json) => n.id)).toEqual(['start', 'guard', 'refuse', 'step', 'again', 'finish', 'done']);
  expect(g.edges).toHaveLength(COUNT_UP_EDGES);
  expect(g.visits).toEqual({ start: 1, guard: 1, step: 3, again: 3, finish: 1, done: 1 });
  expect(g.traversals).toEqual([
    { source: 'start', target: 'guard', count: 1 },
    { source: 'guard', target: 'step', count: 1 },
    { source: 'step', target: 'again', count: 3 },
    { source: 'again', target: 'step', count: 2 },
    { source: 'again', target: 'finish', count: 1 },
    { source: 'finish', target: 'done', count: 1 },
  ]);
  // With executionIndex too (a result handed to the view may name one execution).
  const one = await call('graph_inspect', { executionId: mine._meta['workgraph/executionId'], executionIndex: 2 });
  expect(one._meta['workgraph/runGraph'].visits.step).toBe(3);

  // A host without the extension: the result as before, no _meta at all.
  const theirs = (await plain.client.callTool({ name: 'count_up', arguments: { n: 3 } })) as Json;
  const before = (await plain.client.callTool({ name: 'graph_inspect', arguments: { executionId: theirs._meta['workgraph/executionId'] } })) as Json;
  expect(before.isError).toBeFalsy();
  expect(before._meta).toBeUndefined();
  expect(Object.keys(before.structuredContent).sort()).toEqual(Object.keys(inspected.structuredContent).sort());
});

test("draws the run's tool as a graph: its nodes and ELK-routed edges, the path taken marked, the time-travel position highlighted", async () => {
  const html = await readViewHtml(host.client, 'graph-run');
  const run = await call('count_up', { n: 3 });
  const executionId = run._meta['workgraph/executionId'];
  const inspect = await call('graph_inspect', { executionId });
  const callTool = async (n: string, a: Json) => (await host.client.callTool({ name: n, arguments: a })) as Json;
  const v = await hostView(browser, { html, result: inspect, input: { executionId }, width: 1200, height: 1240, callTool, readResource: readsThrough(host.client) });
  try {
    const drawing = v.view.locator('[data-testid="graph-drawing"]');
    await until(() => drawing.locator('.react-flow__node').count(), (n) => expect(n).toBe(7));
    await until(() => drawing.locator('.react-flow__edge').count(), (n) => expect(n).toBe(COUNT_UP_EDGES));
    // Every edge (the loop's way back up included) follows ELK's route: ELK's script read once through the host.
    expect(await drawing.locator('.react-flow__edge-routed').count()).toBe(COUNT_UP_EDGES);
    expect(await v.reads()).toEqual(['ui://workgraph/assets/elk-worker.js.gz']);
    // The path: every node but the refusal ran; the edges into and out of it were not taken.
    expect(await drawing.locator('.graph-node.on-path').count()).toBe(6);
    expect(await drawing.locator('.graph-node.off-path').getAttribute('data-node')).toBe('refuse');
    expect(await drawing.locator('.react-flow__edge.on-path').count()).toBe(6);
    expect(await drawing.locator('.react-flow__edge.off-path').count()).toBe(2);
    expect(await drawing.locator('.graph-node[data-node="step"] [data-testid="node-visits"]').textContent()).toBe('3×');
    expect(await v.view.locator('[data-testid="run-path"]').textContent()).toContain('6 of 7 nodes ran, 6 of 8 edges taken');
    // Drawn from the result as handed: no call yet, and no node highlighted before travelling.
    expect(await v.calls()).toEqual([]);
    expect(await drawing.locator('.graph-node.selected').count()).toBe(0);
    // No two nodes overlap.
    const boxes = await drawing.locator('.react-flow__node').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON()));
    for (const [i, a] of boxes.entries()) for (const b of boxes.slice(i + 1)) expect(a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top).toBe(true);

    // Travelling highlights the execution's node.
    await v.view.locator('[data-testid="travel-next"]').click();
    await until(() => drawing.locator('.graph-node.selected').getAttribute('data-node'), (id) => expect(id).toBe('start'));
    // A click on a node travels to its next execution (step ran first as #2, then #4).
    await drawing.locator('.react-flow__node[data-id="step"]').click();
    await until(() => v.view.locator('[data-testid="travel-at"]').textContent(), (t) => expect(t).toBe('#2 of 9'));
    await until(() => drawing.locator('.graph-node.selected').getAttribute('data-node'), (id) => expect(id).toBe('step'));
    await drawing.locator('.react-flow__node[data-id="step"]').click();
    await until(() => v.view.locator('[data-testid="travel-at"]').textContent(), (t) => expect(t).toBe('#4 of 9'));
    expect((await v.calls()).map((c) => c.arguments?.executionIndex)).toEqual([0, 2, 4]);
    await until(() => v.view.locator('[data-testid="execution"] h2').textContent(), (t) => expect(t).toContain('#4 step'));
    await v.page.screenshot({ path: screenshotPath('mcp-apps-graph-run-drawing-1200') });
  } finally {
    await v.close();
  }
  const w = await hostView(browser, { html, result: inspect, width: 400, height: 760, callTool, readResource: readsThrough(host.client) });
  try {
    await until(() => w.view.locator('[data-testid="graph-drawing"] .react-flow__node').count(), (n) => expect(n).toBe(7));
    await w.view.locator('[data-testid="travel-next"]').click();
    await until(() => w.view.locator('[data-testid="execution"]').count(), (n) => expect(n).toBe(1));
    const m = await w.view.evaluate(() => ({ scroll: (globalThis as any).document.documentElement.scrollWidth, width: (globalThis as any).document.documentElement.clientWidth }));
    expect(m.scroll).toBeLessThanOrEqual(m.width);
    // The zoom controls (one small row at the top) cover no node and no edge of the first screen.
    expect(await coveredByControls(w.view, '[data-testid="graph-drawing"]')).toEqual([]);
    // Every status line (the run's status, where time travel is, the path) readable whole.
    expect(await cutLines(w.view)).toEqual([]);
    await w.page.screenshot({ path: screenshotPath('mcp-apps-graph-run-drawing-400') });
    await w.setContext({ theme: 'dark' });
    await until(() => w.view.evaluate(() => (globalThis as any).document.documentElement.dataset.theme), (t) => expect(t).toBe('dark'));
    expect(await lowContrast(w.view)).toEqual([]);
    expect(await cutLines(w.view)).toEqual([]);
    await w.page.screenshot({ path: screenshotPath('mcp-apps-graph-run-drawing-400-dark') });
  } finally {
    await w.close();
  }
  // A host that passes no resource reads: the drawing without ELK, its notice wrapped and readable whole at 400 px.
  const plain = await hostView(browser, { html, result: inspect, width: 400, height: 760, callTool });
  try {
    await until(() => plain.view.locator('[data-testid="graph-drawing"] .react-flow__node').count(), (n) => expect(n).toBe(7));
    expect(await plain.view.locator('[data-testid="layout-notice"]').textContent()).toBe('Laid out without ELK (this host does not pass resource reads from views to the server): nodes in rows, edges straight.');
    expect(await cutLines(plain.view)).toEqual([]);
  } finally {
    await plain.close();
  }
});

test('the run as handed, then time travel through its executions by graph_inspect calls', async () => {
  const html = await readViewHtml(host.client, 'graph-run');
  const run = await call('sum_to_n', { n: 3 });
  const executionId = run._meta['workgraph/executionId'];
  const inspect = await call('graph_inspect', { executionId });
  const history = inspect.structuredContent.history as Json[];
  expect(history.length).toBeGreaterThan(3);
  const v = await hostView(browser, { html, result: inspect, input: { executionId }, width: 1200, height: 700, callTool: async (n, a) => (await host.client.callTool({ name: n, arguments: a })) as Json, readResource: readsThrough(host.client) });
  try {
    await until(() => v.view.locator('[data-testid="timeline"] button.exec').count(), (n) => expect(n).toBe(history.length));
    expect(await v.view.locator('[data-testid="run-status"]').textContent()).toBe(inspect.structuredContent.status);
    expect(await v.calls()).toEqual([]);

    await v.view.locator('[data-testid="travel-next"]').click();
    await until(() => v.view.locator('[data-testid="execution"] h2').textContent(), (t) => expect(t).toContain(`#0 ${history[0].nodeId}`));
    await v.view.locator('[data-testid="travel-next"]').click();
    await until(() => v.view.locator('[data-testid="execution"] h2').textContent(), (t) => expect(t).toContain(`#1 ${history[1].nodeId}`));
    expect(await v.calls()).toEqual([
      { name: 'graph_inspect', arguments: { executionId, executionIndex: 0 } },
      { name: 'graph_inspect', arguments: { executionId, executionIndex: 1 } },
    ]);
    const seen = await call('graph_inspect', { executionId, executionIndex: 1 });
    expect(JSON.parse((await v.view.locator('[data-testid="execution"] pre.json').last().textContent())!)).toEqual(seen.structuredContent.context);
    await v.page.screenshot({ path: screenshotPath('mcp-apps-graph-run-1200') });

    // A result that names an execution: shown as handed.
    const last = history.length - 1;
    await v.sendResult(await call('graph_inspect', { executionId, executionIndex: last }));
    await until(() => v.view.locator('[data-testid="travel-at"]').textContent(), (t) => expect(t).toBe(`#${last} of ${last}`));
    await until(() => v.view.locator('[data-testid="execution"] h2').textContent(), (t) => expect(t).toContain(`#${last} `));
    expect((await v.calls()).length).toBe(2);
    await v.page.setViewportSize({ width: 480, height: 740 });
  } finally {
    await v.close();
  }
  const w = await hostView(browser, { html, result: inspect, width: 400, height: 700, callTool: async (n, a) => (await host.client.callTool({ name: n, arguments: a })) as Json, readResource: readsThrough(host.client) });
  try {
    await until(() => w.view.locator('[data-testid="timeline"] button.exec').count(), (n) => expect(n).toBe(history.length));
    await w.view.locator('[data-testid="timeline"] button.exec').nth(2).click();
    await until(() => w.view.locator('[data-testid="execution"]').count(), (n) => expect(n).toBe(1));
    expect(await cutLines(w.view)).toEqual([]);
    await w.page.screenshot({ path: screenshotPath('mcp-apps-graph-run-400') });
  } finally {
    await w.close();
  }
});
