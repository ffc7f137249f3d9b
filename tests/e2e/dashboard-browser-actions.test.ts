/**
 * The dashboard in a real headless Chromium, second part: a dashboard started with --allow-actions (reset a task,
 * restore a knowledge node, run a graph tool from the form built from its input schema — each logged), a workflow
 * session with notes, artifacts, a blocked attempt, a checkpoint and a fork, a failed graph run with the MCP server's
 * stderr tail, knowledge parents/children links and backups, and a large DAG kept usable (titles on the first screen,
 * search, zoom, collapsing a layer). Screenshots under test-artifacts/.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient, tempDir } from './helpers/server-process';
import { startDashboardProcess, waitForApi, type DashboardProcess } from './helpers/dashboard-process';
import { call, seed, SUM_TO_N } from './helpers/dashboard-seed';
import { launchBrowser, screenshotPath, type Browser } from '../helpers/browser';

jest.setTimeout(240_000);

const TEST_SERVER = path.resolve(__dirname, '../fixtures/mcp-servers/test-server.js');
const WORKFLOWS = path.resolve(__dirname, '../fixtures/session-workflows');
/** Tasks of the large DAG in `npm test` (the 5,000-task figure is `npm run bench -- dashboard`). */
const LARGE_LAYERS = 20;
const LARGE_WIDTH = 75;

let data: { dir: string; cleanup: () => void };
let root: { dir: string; cleanup: () => void };
let mcp: { client: Client; close: () => Promise<void> };
let dash: DashboardProcess;
let browser: Browser;
let page: Page;
let seeded: { runId: string; deletedId: string; keptIds: string[] };
let failingGraph: string;

function writeFailingGraph(dir: string): string {
  const file = path.join(dir, 'explode.yaml');
  fs.writeFileSync(
    file,
    [
      'version: "1.0"',
      'server: { name: "explosives", version: "1.0.0" }',
      'mcpServers:',
      `  crashy: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(TEST_SERVER)}] }`,
      'tools:',
      '  - name: explode',
      '    description: calls a server tool that writes to stderr and dies',
      '    inputSchema: { type: object, properties: { reason: { type: string, description: "what to say" } }, required: [reason] }',
      '    outputSchema: { type: object }',
      '    nodes:',
      '      - { id: start, type: entry, next: boom }',
      '      - { id: boom, type: mcp, server: crashy, tool: crash, args: { message: "$.start.reason" }, next: done }',
      '      - { id: done, type: exit }',
      '',
    ].join('\n'),
  );
  return file;
}

function layeredNodes(layers: number, width: number) {
  const nodes = [];
  for (let l = 0; l < layers; l++) {
    for (let i = 0; i < width; i++) {
      const deps = l === 0 ? [] : [`t${l - 1}-${i}`, ...(i + 1 < width && i % 3 === 0 ? [`t${l - 1}-${i + 1}`] : [])];
      nodes.push({ id: `t${l}-${i}`, title: `Task ${l}.${i}: part ${i} of stage ${l}`, depends_on: deps, validation_command: 'true' });
    }
  }
  return nodes;
}

beforeAll(async () => {
  data = tempDir('wg-dash-act-');
  root = tempDir('wg-dash-act-root-');
  failingGraph = writeFailingGraph(root.dir);
  mcp = await connectClient({ dataDir: data.dir, args: ['--graphs', SUM_TO_N, '--graphs', failingGraph, '--allow-root', root.dir, '--workflows', WORKFLOWS] });
  seeded = await seed(mcp.client, root.dir);
  dash = await startDashboardProcess({ dataDir: data.dir, args: ['--graphs', SUM_TO_N, '--workflows', WORKFLOWS, '--allow-actions'], env: { WORKGRAPH_LOG_LEVEL: 'info' } });
  await waitForApi(dash, `/runs/${seeded.runId}`);
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await page.goto(dash.url);
  await page.locator('[data-testid="mode"]', { hasText: 'Actions enabled' }).waitFor({ timeout: 30_000 });
});

afterAll(async () => {
  await browser?.close();
  await dash?.stop();
  await mcp?.close();
  data?.cleanup();
  root?.cleanup();
});

describe('actions (--allow-actions)', () => {
  test('reset a task from its details: reset_task_node sends the RETRYING task back to READY, logged', async () => {
    await page.goto(`${dash.url}#/tasks/demo-app`);
    await page.locator('.task-node[data-task="build"][data-status="RETRYING"]').click({ timeout: 30_000 });
    const details = page.locator('[data-testid="task-details"]');
    await details.locator('[data-testid="reset-task"]').click();
    await page.locator('.task-node[data-task="build"][data-status="READY"]').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: screenshotPath('dashboard-action-reset') });
    expect(dash.stderr()).toMatch(/"action":"reset_task_node".*"node":"build".*"msg":"dashboard action"/);
    // The same use case as the tool: the MCP server sees the task READY with its attempts cleared.
    const ready = await call(mcp.client, 'get_ready_tasks', { project: 'Demo App' });
    expect(ready.ready_tasks.map((t: { id: string }) => t.id)).toContain('build');
  });

  test('restore a deleted knowledge node from the Deleted tab; it is back in the list', async () => {
    await page.goto(`${dash.url}#/knowledge/demo-notes`);
    await page.locator('[data-testid="tab-deleted"]').click();
    await page.getByText('superseded by the hand-written parser').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Restore' }).click();
    await page.locator('[data-testid="deleted"] > li').first().waitFor({ state: 'detached', timeout: 30_000 });
    await page.locator('[data-testid="tab-nodes"]').click();
    await page.locator(`[data-testid="knodes"] > li[data-node="${seeded.deletedId}"]`).waitFor({ timeout: 30_000 });
    expect(dash.stderr()).toMatch(/"action":"restore_nodes".*"msg":"dashboard action"/);
  });

  test('run a graph tool from the form built from its input schema; the run is recorded and opens', async () => {
    await page.goto(`${dash.url}#/graphs/sum_to_n`);
    const form = page.locator('[data-testid="run-form"]');
    await form.waitFor({ timeout: 30_000 });
    await form.locator('input[name="n"]').fill('5');
    await form.getByRole('button', { name: 'Run' }).click();
    const link = form.locator('a[href^="#/runs/"]');
    await link.waitFor({ timeout: 60_000 });
    await expect(form.textContent()).resolves.toMatch(/"sum": 15/);
    await page.screenshot({ path: screenshotPath('dashboard-action-run'), fullPage: true });
    await link.click();
    await page.locator('[data-testid="timeline"] .exec').first().waitFor({ timeout: 30_000 });
    expect(dash.stderr()).toMatch(/"action":"run_graph_tool".*"tool":"sum_to_n".*"msg":"dashboard action"/);
  });
});

test('a workflow session: notes and artifacts per step, the blocked attempt, a checkpoint and a fork on the timeline', async () => {
  const started = await call(mcp.client, 'workflow_start', { workflowId: 'session-demo', goal: 'review the parser change' });
  const edit = await call(mcp.client, 'workflow_continue', {
    continueToken: started.continueToken,
    output: { notesMarkdown: 'Planned: rewrite src/parser.ts by hand', artifacts: [{ file: 'src/parser.ts', lines: 42 }] },
    context: { files: ['src/parser.ts'] },
  });
  expect(edit.status).toBe('advanced');
  const checkpoint = await call(mcp.client, 'workflow_checkpoint', { continueToken: edit.continueToken });
  const report = await call(mcp.client, 'workflow_continue', { continueToken: edit.continueToken, output: { notesMarkdown: 'edited src/parser.ts' } });
  const blocked = await call(mcp.client, 'workflow_continue', { continueToken: report.continueToken, output: { notesMarkdown: 'almost' } });
  expect(blocked.status).toBe('blocked');
  const forked = await call(mcp.client, 'workflow_continue', { continueToken: checkpoint.checkpointToken, output: { notesMarkdown: 'edited src/parser.ts differently' } });
  expect(forked.status).toBe('advanced');

  await page.goto(`${dash.url}#/sessions/${started.sessionId as string}`);
  const timeline = page.locator('[data-testid="session-timeline"]');
  await timeline.waitFor({ timeout: 30_000 });
  const plan = page.locator('[data-testid="steps"] .step[data-step="plan"]');
  await expect(plan.textContent()).resolves.toContain('Planned: rewrite src/parser.ts by hand');
  await expect(plan.textContent()).resolves.toContain('"lines": 42');
  await page.getByText('Blocked attempts').waitFor();
  await page.getByText('The report must contain DONE').first().waitFor();
  const text = (await timeline.textContent()) ?? '';
  expect(text).toMatch(/checkpoint/i);
  expect(text).toMatch(/fork/i);
  expect(text).toMatch(/blocked/i);
  await page.screenshot({ path: screenshotPath('dashboard-session-timeline'), fullPage: true });
});

test('a failed graph run shows its error and the MCP server\'s stderr tail on the failing node', async () => {
  const r = await mcp.client.callTool({ name: 'explode', arguments: { reason: 'disk on fire' } });
  expect(r.isError).toBe(true);
  const runId = (r._meta as Record<string, string>)['workgraph/executionId'];
  await waitForApi(dash, `/runs/${runId}`);
  // The dashboard did not load this graph file: it draws it from the file the run names.
  await page.goto(`${dash.url}#/runs/${runId}`);
  await page.locator('[data-testid="run-error"]').waitFor({ timeout: 30_000 });
  await page.screenshot({ path: screenshotPath('dashboard-run-error'), fullPage: true });
  await page.locator('.exec.failed').click();
  const panel = page.locator('[data-testid="execution"]');
  await panel.getByText('MCP server stderr (tail)').waitFor({ timeout: 30_000 });
  await expect(panel.textContent()).resolves.toContain('disk on fire');
  await page.screenshot({ path: screenshotPath('dashboard-run-error'), fullPage: true });
});

test('knowledge: a node page links its parents and children; the backups tab lists the backup taken before the delete', async () => {
  const [parent] = seeded.keptIds;
  const child = await call(mcp.client, 'add_nodes', {
    projectContext: '/work/demo-notes',
    nodes: [{ thought: 'Error messages name the line and column', role: 'critic', tags: ['review'], parents: [parent] }],
  });
  const childId = (child.ids as string[])[0];
  await page.goto(`${dash.url}#/knowledge/demo-notes/${parent}`);
  await page.locator(`a[href$="/${childId}"]`).click({ timeout: 30_000 });
  await page.getByRole('heading', { name: /Error messages name the line and column/ }).waitFor({ timeout: 30_000 });
  await page.locator(`a[href$="/${parent}"]`).waitFor();
  await page.screenshot({ path: screenshotPath('dashboard-knowledge-node'), fullPage: true });
  await page.goto(`${dash.url}#/knowledge/demo-notes`);
  await page.locator('[data-testid="tab-backups"]').click();
  await page.locator('table code', { hasText: /\S/ }).first().waitFor({ timeout: 30_000 });
});

test(`a ${LARGE_LAYERS * LARGE_WIDTH}-task DAG: titles on the first screen, search jumps to a task, zoom, a layer collapses`, async () => {
  await call(mcp.client, 'init_project_graph', { projectName: 'Big Plan', projectRoot: root.dir, nodes: layeredNodes(LARGE_LAYERS, LARGE_WIDTH) });
  // Past ELK's size the DAG is laid out in the render that draws it: a DOM observer, which sees each render as it
  // lands, never sees a "Laying out…" render before the first task.
  await page.addInitScript(() => {
    const w = globalThis as any;
    w.__layingOut = false;
    new w.MutationObserver((_: unknown, observer: { disconnect(): void }) => {
      const doc = w.document;
      if (/Laying out \d+ tasks/.test(doc.body?.textContent ?? '')) w.__layingOut = true;
      if (doc.querySelector('.dag-canvas .task-node')) observer.disconnect();
    }).observe(w.document, { childList: true, subtree: true });
  });
  // A new document (the page is on the dashboard already: only its hash would change), which runs the observer.
  await page.goto('about:blank');
  await page.goto(`${dash.url}#/tasks/big-plan`);
  const titles = page.locator('.task-node .task-title');
  await titles.first().waitFor({ timeout: 60_000 });
  expect(await page.evaluate(() => (globalThis as any).__layingOut)).toBe(false);
  // The first screen shows readable titles, not a fitted speck: several task nodes, each at least 100 px wide.
  const firstBox = await page.locator('.task-node').first().boundingBox();
  expect(firstBox!.width).toBeGreaterThan(100);
  await expect(titles.first().textContent()).resolves.toMatch(/^Task \d+\.\d+/);
  // Only what is near the viewport is rendered.
  expect(await page.locator('.task-node').count()).toBeLessThan(LARGE_LAYERS * LARGE_WIDTH / 2);
  await page.screenshot({ path: screenshotPath('dashboard-large-dag') });

  // Search by id: the far task is brought on screen and marked.
  const far = `t${LARGE_LAYERS - 1}-${LARGE_WIDTH - 1}`;
  await page.locator('[data-testid="task-search"]').fill(far);
  await page.locator('[data-testid="task-search"]').press('Enter');
  await page.locator(`.task-node.match[data-task="${far}"]`).waitFor({ timeout: 30_000 });
  await expect(page.locator('[data-testid="match-count"]').textContent()).resolves.toContain('1 match');

  // Zoom out with the control: the view's scale goes down and tasks stay drawn (compared by scale, not by how many
  // nodes happen to be on screen while the search's pan may still be animating on a loaded machine).
  const scale = () => page.locator('.react-flow__viewport').evaluate((el) => Number(/scale\(([^)]+)\)/.exec((el as any).style.transform)?.[1] ?? NaN));
  const before = await scale();
  await page.locator('.react-flow__controls-zoomout').click();
  await page.locator('.react-flow__controls-zoomout').click();
  await page.waitForFunction(
    (z) => Number(/scale\(([^)]+)\)/.exec((globalThis as any).document.querySelector('.react-flow__viewport').style.transform)?.[1]) < z,
    before,
    { timeout: 30_000 },
  );
  expect(await scale()).toBeLessThan(before);
  await page.locator('.task-node').first().waitFor();

  // Collapse the first layer: its tasks become one summary node with the counts by status.
  await page.locator('[data-testid="task-search"]').fill('');
  await page.locator('[data-testid="layer-0"]').uncheck();
  await page.locator('.task-node[data-task="t0-0"]').waitFor({ state: 'detached', timeout: 30_000 });
  const summary = page.locator('.layer-node[data-layer="0"]');
  await summary.waitFor({ timeout: 30_000 });
  await expect(summary.textContent()).resolves.toMatch(new RegExp(`${LARGE_WIDTH} tasks \\(collapsed\\).*${LARGE_WIDTH} READY`));
  await page.screenshot({ path: screenshotPath('dashboard-large-dag-collapsed') });
});
