/**
 * A draft's run drawn: an agent (the real MCP server with --graph-authoring, driven by the SDK client) runs tool
 * definitions it has not saved (graph_tool_run with `tool`); a real `workgraph dashboard` over the same data dir draws
 * each run as it ran — from the definition the run record keeps, not from a file (the draft is in none) and not from
 * a served tool of the same name — and a definition over the bound is recorded without it, the page saying why.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient, tempDir } from './helpers/server-process';
import { startDashboardProcess, waitForApi, type DashboardProcess } from './helpers/dashboard-process';
import { launchBrowser, screenshotPath, type Browser } from '../helpers/browser';

jest.setTimeout(180_000);

const SERVED = `# one served tool
server: { name: "drafts", version: "1.0.0" }
tools:
  - name: "countdown"
    description: "The served version: straight through"
    inputSchema: { type: "object", properties: { n: { type: "number" } } }
    outputSchema: { type: "object" }
    nodes:
      - { id: "entry", type: "entry", next: "served_only" }
      - { id: "served_only", type: "transform", transform: { expr: '{ "n": $.entry.n }' }, next: "exit" }
      - { id: "exit", type: "exit" }
`;

/** A loop counting n down, as an agent would draft it (newest format). */
function draft(name: string, description = 'Counts n down in a loop') {
  return {
    name,
    description,
    inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
    outputSchema: { type: 'object', properties: { left: { type: 'number' }, steps: { type: 'number' } } },
    nodes: [
      { id: 'entry', type: 'entry', next: 'step' },
      { id: 'step', type: 'transform', transform: { expr: '{ "left": ($executionCount("step") = 0 ? $.entry.n : $.step.left) - 1 }' }, next: 'more' },
      { id: 'more', type: 'switch', conditions: [{ rule: { '>': [{ var: '$.step.left' }, 0] }, target: 'step' }, { target: 'done' }] },
      { id: 'done', type: 'transform', transform: { expr: '{ "left": $.step.left, "steps": $executionCount("step") }' }, next: 'exit' },
      { id: 'exit', type: 'exit' },
    ],
  };
}

type Result = { isError?: boolean; structuredContent?: Record<string, any>; content: Array<{ text: string }> };

let data: { dir: string; cleanup: () => void };
let graphs: { dir: string; cleanup: () => void };
let mcp: { client: Client; close: () => Promise<void> };
let dash: DashboardProcess;
let browser: Browser;
let page: Page;

const call = async (name: string, args: Record<string, unknown>) => (await mcp.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as Result;
const api = async (p: string) => {
  const res = await fetch(`${dash.origin}/api${p}`, { headers: { Authorization: `Bearer ${dash.token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
};
const drawn = (d: Record<string, any>) => (d.nodes as Array<{ id: string }>).map((n) => n.id);

beforeAll(async () => {
  data = tempDir('wg-draft-run-');
  graphs = tempDir('wg-draft-run-graphs-');
  const file = path.join(graphs.dir, 'drafts.yaml');
  fs.writeFileSync(file, SERVED);
  mcp = await connectClient({ dataDir: data.dir, args: ['--graphs', graphs.dir, '--graph-authoring'] });
  dash = await startDashboardProcess({ dataDir: data.dir, args: ['--graphs', graphs.dir] });
  browser = await launchBrowser();
  page = await browser.context.newPage();
});

afterAll(async () => {
  await browser?.close();
  await dash?.stop();
  await mcp?.close();
  data?.cleanup();
  graphs?.cleanup();
});

test("a draft run alone is drawn from the definition its record keeps: the API's drawing, and the run page's in Chromium", async () => {
  const r = await call('graph_tool_run', { tool: draft('draft_countdown'), arguments: { n: 3 } });
  expect(r.structuredContent).toMatchObject({ status: 'completed', result: { left: 0, steps: 3 } });
  const runId = r.structuredContent!.executionId as string;
  await waitForApi(dash, `/runs/${runId}`);

  const run = (await api(`/runs/${runId}`)).body;
  expect(run).toMatchObject({ tool: 'draft_countdown', draft: true, definition: { name: 'draft_countdown', nodes: expect.any(Array) } });
  expect(run.file).toBeUndefined();
  const tool = await api(`/graphs/draft_countdown?run=${runId}`);
  expect(tool.status).toBe(200);
  expect(tool.body).toMatchObject({ name: 'draft_countdown', description: 'Counts n down in a loop', loaded: false, draftRun: runId, file: '(in-memory graph)' });
  expect(drawn(tool.body)).toEqual(['entry', 'step', 'more', 'done', 'exit']);
  expect(tool.body.edges).toEqual(expect.arrayContaining([expect.objectContaining({ source: 'more', target: 'step', rule: { '>': [{ var: '$.step.left' }, 0] } })]));
  // The tool's own page (no run named) draws it from its latest run too: a draft is in no file.
  expect(drawn((await api('/graphs/draft_countdown')).body)).toEqual(['entry', 'step', 'more', 'done', 'exit']);

  await page.goto(`${dash.url}#/runs/${runId}`);
  await page.locator('[data-testid="run-status"]', { hasText: 'completed' }).waitFor();
  await page.locator('[data-testid="run-draft"]').waitFor();
  for (const id of ['entry', 'step', 'more', 'done', 'exit']) await page.locator(`[data-testid="graph-drawing"] .graph-node[data-node="${id}"]`).waitFor();
  // The run's path marked: the loop ran three rounds, every edge taken (the loop's edge back up too).
  expect(run.path).toEqual({
    visits: { entry: 1, step: 3, more: 3, done: 1, exit: 1 },
    traversals: [
      { source: 'entry', target: 'step', count: 1 },
      { source: 'step', target: 'more', count: 3 },
      { source: 'more', target: 'step', count: 2 },
      { source: 'more', target: 'done', count: 1 },
      { source: 'done', target: 'exit', count: 1 },
    ],
  });
  const drawing = page.locator('[data-testid="graph-drawing"]');
  await drawing.locator('.react-flow__edge').first().waitFor({ state: 'attached' });
  expect(await drawing.locator('.graph-node[data-node="step"] [data-testid="node-visits"]').textContent()).toBe('3×');
  expect(await drawing.locator('.graph-node.on-path').count()).toBe(5);
  expect(await drawing.locator('.react-flow__edge.on-path').count()).toBe(5);
  expect(await drawing.locator('.react-flow__edge.off-path').count()).toBe(0);
  // A node of the drawing shows its latest execution, as on a served tool's run.
  await page.locator('.graph-node[data-node="done"]').click();
  const panel = page.locator('[data-testid="execution"]');
  await panel.locator('h2', { hasText: 'done' }).waitFor();
  await panel.getByText('"steps": 3').first().waitFor();
  await page.screenshot({ path: screenshotPath('dashboard-draft-run'), fullPage: true });
});

test("a draft named like a served tool is drawn as the draft ran, the served tool's runs as the file has it", async () => {
  const r = await call('graph_tool_run', { tool: draft('countdown', 'The draft version: a loop'), file: 'drafts.yaml', arguments: { n: 2 } });
  expect(r.structuredContent).toMatchObject({ status: 'completed', result: { left: 0, steps: 2 } });
  const draftRun = r.structuredContent!.executionId as string;
  const served = await call('graph_tool_run', { name: 'countdown', arguments: { n: 2 } });
  expect(served.structuredContent).toMatchObject({ status: 'completed', result: { n: 2 } });
  const servedRun = served.structuredContent!.executionId as string;
  await waitForApi(dash, `/runs/${draftRun}`);
  await waitForApi(dash, `/runs/${servedRun}`);

  const asDraft = (await api(`/graphs/countdown?run=${draftRun}`)).body;
  expect(asDraft).toMatchObject({ description: 'The draft version: a loop', loaded: false, draftRun, file: expect.stringMatching(/drafts\.yaml$/) });
  expect(drawn(asDraft)).toEqual(['entry', 'step', 'more', 'done', 'exit']);
  const asServed = (await api(`/graphs/countdown?run=${servedRun}`)).body;
  expect(asServed).toMatchObject({ loaded: true });
  expect(asServed.draftRun).toBeUndefined();
  expect(drawn(asServed)).toEqual(['entry', 'served_only', 'exit']);
  expect((await api(`/runs/${servedRun}`)).body.draft).toBeUndefined();
  expect(drawn((await api('/graphs/countdown')).body)).toEqual(['entry', 'served_only', 'exit']);
  expect((await api('/graphs/countdown?run=no-such-run')).status).toBe(404);

  await page.goto(`${dash.url}#/runs/${draftRun}`);
  await page.locator('[data-testid="graph-drawing"] .graph-node[data-node="more"]').waitFor();
  expect(await page.locator('.graph-node[data-node="served_only"]').count()).toBe(0);
  await page.goto(`${dash.url}#/runs/${servedRun}`);
  await page.locator('[data-testid="graph-drawing"] .graph-node[data-node="served_only"]').waitFor();
  expect(await page.locator('[data-testid="run-draft"]').count()).toBe(0);
});

test('a definition over the bound runs and is recorded without it: the page says why it is not drawn', async () => {
  const big = draft('big_draft', 'x'.repeat(300 * 1024));
  const r = await call('graph_tool_run', { tool: big, arguments: { n: 1 } });
  expect(r.structuredContent).toMatchObject({ status: 'completed', result: { left: 0, steps: 1 } });
  const runId = r.structuredContent!.executionId as string;
  await waitForApi(dash, `/runs/${runId}`);
  const run = (await api(`/runs/${runId}`)).body;
  expect(run).toMatchObject({ draft: true, draftOmitted: expect.stringMatching(/over 256 KiB/) });
  expect(run.definition).toBeUndefined();
  const tool = (await api(`/graphs/big_draft?run=${runId}`)).body;
  expect(tool).toMatchObject({ draftRun: runId, nodes: [], edges: [] });
  await page.goto(`${dash.url}#/runs/${runId}`);
  await page.locator('[data-testid="run-draft-omitted"]', { hasText: 'over 256 KiB' }).waitFor();
  expect(await page.locator('[data-testid="graph-drawing"]').count()).toBe(0);
});

const runRow = (list: string, runId: string) => page.locator(`${list} tr`, { has: page.locator(`a[href="#/runs/${encodeURIComponent(runId)}"]`) });

test("a run's path over the drawing: the branch not taken dimmed; a draft's run tagged in the runs lists", async () => {
  // n = 1: one round, the switch goes straight to done — its edge back to step not taken.
  const r = await call('graph_tool_run', { tool: draft('one_round'), arguments: { n: 1 } });
  expect(r.structuredContent).toMatchObject({ status: 'completed', result: { left: 0, steps: 1 } });
  const runId = r.structuredContent!.executionId as string;
  await waitForApi(dash, `/runs/${runId}`);
  const run = (await api(`/runs/${runId}`)).body;
  expect(run.path.traversals).not.toContainEqual(expect.objectContaining({ source: 'more', target: 'step' }));
  expect(run.path.traversals).toContainEqual({ source: 'more', target: 'done', count: 1 });

  await page.goto(`${dash.url}#/runs/${runId}`);
  const drawing = page.locator('[data-testid="graph-drawing"]');
  await drawing.locator('.graph-node[data-node="done"]').waitFor();
  await drawing.locator('.react-flow__edge').first().waitFor({ state: 'attached' });
  const edge = (from: string, to: string) => drawing.locator(`.react-flow__edge[data-id^="${from}-${to}-"]`);
  expect(await edge('more', 'step').getAttribute('class')).toMatch(/\boff-path\b/);
  expect(await edge('more', 'done').getAttribute('class')).toMatch(/\bon-path\b/);
  expect(await edge('step', 'more').getAttribute('class')).toMatch(/\bon-path\b/);
  expect(await drawing.locator('.react-flow__edge.off-path').count()).toBe(1);
  expect(await drawing.locator('.react-flow__edge.on-path').count()).toBe(4);
  // The dimmed edge is drawn dimmed (not only classed): its opacity below the taken ones'.
  expect(Number(await edge('more', 'step').locator('path.react-flow__edge-path').evaluate((p) => (globalThis as any).getComputedStyle(p).opacity as string))).toBeLessThan(1);
  expect(await drawing.locator('.graph-node[data-node="step"] [data-testid="node-visits"]').textContent()).toBe('1×');

  // The runs lists: the tool page's and the graph tools page's mark the draft's run, not a served tool's.
  const served = await call('graph_tool_run', { name: 'countdown', arguments: { n: 1 } });
  const servedRun = served.structuredContent!.executionId as string;
  await waitForApi(dash, `/runs/${servedRun}`);
  await page.goto(`${dash.url}#/graphs/one_round`);
  await runRow('[data-testid="runs"]', runId).locator('[data-testid="run-draft-tag"]', { hasText: 'draft' }).waitFor();
  await page.goto(`${dash.url}#/graphs`);
  await runRow('[data-testid="runs"]', runId).locator('[data-testid="run-draft-tag"]').waitFor();
  await runRow('[data-testid="runs"]', servedRun).waitFor();
  expect(await runRow('[data-testid="runs"]', servedRun).locator('[data-testid="run-draft-tag"]').count()).toBe(0);
  // The overview's recent runs too.
  await page.goto(`${dash.url}#/`);
  await page.locator('li', { has: page.locator(`a[href="#/runs/${encodeURIComponent(runId)}"]`) }).locator('[data-testid="run-draft-tag"]').waitFor();
  expect(await page.locator('li', { has: page.locator(`a[href="#/runs/${encodeURIComponent(servedRun)}"]`) }).locator('[data-testid="run-draft-tag"]').count()).toBe(0);
});
