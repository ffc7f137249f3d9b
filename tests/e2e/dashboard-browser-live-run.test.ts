/**
 * A graph run drawn live: an agent (the real MCP server, driven by the SDK client) runs a long graph tool — a loop of
 * 200 iterations, each through a real MCP server's `slow` tool — while a real `workgraph dashboard` (another process,
 * over the same data dir) is open in headless Chromium. The open page shows the run as it happens, without a reload:
 * status running, the current node highlighted in the drawing, the count of node executions growing, a node's output
 * on click; when it ends, the page shows it completed with the result the agent got.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient, tempDir } from './helpers/server-process';
import { startDashboardProcess, type DashboardProcess } from './helpers/dashboard-process';
import { launchBrowser, screenshotPath, type Browser } from '../helpers/browser';
import { slowLoopGraph } from './helpers/slow-loop-graph';

jest.setTimeout(180_000);

const ITERATIONS = 200;


let data: { dir: string; cleanup: () => void };
let graphs: { dir: string; cleanup: () => void };
let mcp: { client: Client; close: () => Promise<void> };
let dash: DashboardProcess;
let browser: Browser;
let page: Page;
let graphFile: string;

beforeAll(async () => {
  data = tempDir('wg-live-run-');
  graphs = tempDir('wg-live-run-graphs-');
  graphFile = path.join(graphs.dir, 'slow-loop.yaml');
  fs.writeFileSync(graphFile, slowLoopGraph('live'));
  mcp = await connectClient({ dataDir: data.dir, args: ['--graphs', graphFile] });
  dash = await startDashboardProcess({ dataDir: data.dir, args: ['--graphs', graphFile] });
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

const executionsShown = async (): Promise<number> => Number(await page.locator('[data-testid="run-executions"]').textContent());

test("an agent's long graph run is drawn live on the open page, node by node, and ends completed with the agent's result", async () => {
  await page.goto(`${dash.url}#/graphs/slow_loop`);
  await page.locator('[data-testid="graph-drawing"] .graph-node[data-node="wait"]').waitFor();
  await page.locator('[data-testid="graph-drawing"]').getByText('No recorded runs yet.').waitFor().catch(() => undefined);

  // The agent starts the run; the page (opened before it) is never reloaded from here on.
  const call = mcp.client.callTool({ name: 'slow_loop', arguments: { n: ITERATIONS, ms: 25 } }, undefined, { timeout: 120_000 });
  const runningRow = page.locator('[data-testid="runs"] tr', { has: page.locator('.run-status.running') });
  await runningRow.waitFor({ timeout: 30_000 });
  await runningRow.locator('a').first().click();

  // The run page, while the run goes on: running, at a node, that node highlighted in the drawing.
  await page.locator('[data-testid="run-status"]', { hasText: 'running' }).waitFor();
  const current = page.locator('[data-testid="run-current"]');
  await current.waitFor();
  expect(['entry', 'wait', 'count', 'check']).toContain(await current.textContent());
  await page.locator('.graph-node.selected').first().waitFor();
  await page.screenshot({ path: screenshotPath('dashboard-live-run') });
  const first = await executionsShown();
  // The count grows on the same page (live stream events, no reload), twice.
  await page.waitForFunction((n) => Number((globalThis as any).document.querySelector('[data-testid="run-executions"]')?.textContent) > n, first, { timeout: 30_000 });
  const second = await executionsShown();
  await page.waitForFunction((n) => Number((globalThis as any).document.querySelector('[data-testid="run-executions"]')?.textContent) > n, second, { timeout: 30_000 });
  expect(await page.locator('[data-testid="run-status"]').textContent()).toBe('running');
  // The highlighted node is the current one.
  const highlighted = await page.locator('.graph-node.selected').getAttribute('data-node');
  expect(['entry', 'wait', 'count', 'check']).toContain(highlighted);
  // The run's path as it grows: the loop's nodes on it, the way out not taken yet (dimmed), the rounds counted.
  const drawing = page.locator('[data-testid="graph-drawing"]');
  const edge = (from: string, to: string) => drawing.locator(`.react-flow__edge[data-id^="${from}-${to}-"]`);
  const waits = async () => Number((await drawing.locator('.graph-node[data-node="wait"] [data-testid="node-visits"]').textContent())?.replace('×', ''));
  expect(await drawing.locator('.graph-node[data-node="done"]').getAttribute('class')).toMatch(/\boff-path\b/);
  expect(await edge('check', 'done').getAttribute('class')).toMatch(/\boff-path\b/);
  expect(await edge('entry', 'wait').getAttribute('class')).toMatch(/\bon-path\b/);
  expect(await page.locator('[data-testid="run-status"]').textContent()).toBe('running');
  const rounds = await waits();
  expect(rounds).toBeGreaterThan(0);
  await page.waitForFunction((n) => Number((globalThis as any).document.querySelector('[data-testid="graph-drawing"] .graph-node[data-node="wait"] [data-testid="node-visits"]')?.textContent?.replace('×', '')) > n, rounds, { timeout: 30_000 });
  expect(await edge('check', 'wait').getAttribute('class')).toMatch(/\bon-path\b/);

  // A node's output on click, while the run goes on: its latest execution.
  await page.locator('.graph-node[data-node="count"]').click();
  const panel = page.locator('[data-testid="execution"]');
  await panel.locator('h2', { hasText: 'count' }).waitFor();
  await panel.getByText('"n": 200').first().waitFor();

  const r = await call;
  expect(r.isError).toBeFalsy();
  expect(r.structuredContent).toEqual({ iterations: ITERATIONS, waits: ITERATIONS, last: 'done' });
  const runId = (r._meta as Record<string, string>)['workgraph/executionId'];
  expect(page.url()).toContain(runId);

  // The end, still without a reload: completed, no current node, the agent's result, every execution recorded.
  await page.locator('[data-testid="run-status"]', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
  expect(await page.locator('[data-testid="run-current"]').count()).toBe(0);
  expect(await executionsShown()).toBe(1 + ITERATIONS * 3 + 2);
  await page.getByText('"iterations": 200').first().waitFor();
  // The whole path: every node ran (the loop's 200 times), every edge taken, the way out too.
  expect(await waits()).toBe(ITERATIONS);
  expect(await drawing.locator('.graph-node.off-path').count()).toBe(0);
  expect(await drawing.locator('.react-flow__edge.off-path').count()).toBe(0);
  expect(await edge('check', 'done').getAttribute('class')).toMatch(/\bon-path\b/);
  // Time travel as before: an early execution's context.
  await page.locator('[data-exec="4"]').click();
  await panel.locator('h2', { hasText: '#4 wait' }).waitFor();
  await page.screenshot({ path: screenshotPath('dashboard-live-run-done'), fullPage: true });
});
