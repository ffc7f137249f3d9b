/**
 * The dashboard's debugger in headless Chromium: a real `workgraph dashboard --allow-actions` serving a graph tool that
 * loops through a real MCP server's `slow` tool. On the tool's page a click on a node sets a breakpoint (its marker
 * drawn); Debug runs the tool with the arguments of the form and the run stops there (paused before that node, the
 * node highlighted, the context it reads shown); Step advances exactly one node (the next node is current, one more
 * execution); Resume holds at the breakpoint's next iteration, and once the breakpoint is cleared it finishes with the
 * result the same tool gives an MCP client without the debugger; a reload in between comes back to the paused run.
 * Another run, held at its entry and reached again from its run page, is stopped: it ends stopped and is recorded so. A read-only dashboard's page offers none of it.
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

const ITERATIONS = 3;


let data: { dir: string; cleanup: () => void };
let graphs: { dir: string; cleanup: () => void };
let mcp: { client: Client; close: () => Promise<void> };
let dash: DashboardProcess;
let readOnly: DashboardProcess;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  data = tempDir('wg-debugger-');
  graphs = tempDir('wg-debugger-graphs-');
  const graphFile = path.join(graphs.dir, 'slow-loop.yaml');
  fs.writeFileSync(graphFile, slowLoopGraph('debuggee'));
  mcp = await connectClient({ dataDir: data.dir, args: ['--graphs', graphFile] });
  [dash, readOnly] = await Promise.all([
    startDashboardProcess({ dataDir: data.dir, args: ['--graphs', graphFile, '--allow-actions'], env: { WORKGRAPH_LOG_LEVEL: 'info' } }),
    startDashboardProcess({ dataDir: data.dir, args: ['--graphs', graphFile] }),
  ]);
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await page.setViewportSize({ width: 1280, height: 1000 });
});

afterAll(async () => {
  await browser?.close();
  await Promise.all([dash?.stop(), readOnly?.stop()]);
  await mcp?.close();
  data?.cleanup();
  graphs?.cleanup();
});

const text = async (testId: string): Promise<string> => (await page.locator(`[data-testid="${testId}"]`).textContent()) ?? '';
const statusIs = (status: string) => page.locator(`[data-testid="debug-status"][data-status="${status}"]`).waitFor({ timeout: 30_000 });
const button = (name: string) => page.locator('[data-testid="debug-panel"]').getByRole('button', { name, exact: true });
const node = (id: string) => page.locator(`[data-testid="graph-drawing"] .graph-node[data-node="${id}"]`);

test('breakpoint → paused there with its context; step → one node; resume → the result an MCP client gets without the debugger', async () => {
  // The same tool and arguments through an MCP client, no debugger.
  const plain = await mcp.client.callTool({ name: 'slow_loop', arguments: { n: ITERATIONS, ms: 5 } }, undefined, { timeout: 60_000 });
  expect(plain.isError).toBeFalsy();

  await page.goto(`${dash.url}#/graphs/slow_loop`);
  await node('count').waitFor({ timeout: 30_000 });
  // A click on a node sets a breakpoint: its marker is drawn and it is listed.
  await node('count').click();
  await page.locator('.graph-node.breakpoint[data-node="count"] .breakpoint-dot').waitFor();
  expect(await page.locator('[data-testid="breakpoint"]').allTextContents()).toEqual(['count']);

  const form = page.locator('[data-testid="run-form"]');
  await form.locator('input[name="n"]').fill(String(ITERATIONS));
  await form.locator('input[name="ms"]').fill('5');
  await form.getByRole('button', { name: 'Debug' }).click();

  // Stopped at the breakpoint: entry and wait ran, count is about to; the drawing highlights it; the context is what
  // count's expression reads.
  await statusIs('paused');
  expect(await text('debug-current')).toBe('count');
  expect(await text('debug-executions')).toBe('2');
  expect(await page.locator('.graph-node.selected').getAttribute('data-node')).toBe('count');
  const context = JSON.parse(await page.locator('[data-testid="debug-context"] pre').textContent() ?? 'null');
  expect(context.entry).toEqual({ n: ITERATIONS, ms: 5 });
  expect(Object.keys(context).sort()).toEqual(['entry', 'wait']);
  expect(await page.locator('[data-testid="debug-history"] li').count()).toBe(2);
  // Controls: only what a paused run allows.
  expect(await button('Pause').isDisabled()).toBe(true);
  for (const b of ['Step', 'Resume', 'Stop']) expect(await button(b).isEnabled()).toBe(true);
  expect(await form.getByRole('button', { name: 'Debug' }).isDisabled()).toBe(true);
  // The whole workbench in one window (a full-page shot would draw the sticky header mid-page).
  await page.setViewportSize({ width: 1280, height: 1560 });
  await page.screenshot({ path: screenshotPath('dashboard-debugger-paused') });
  await page.setViewportSize({ width: 1280, height: 1000 });

  // Step: exactly one node — count ran, check is current, one more execution.
  await button('Step').click();
  await page.locator('[data-testid="debug-current"]', { hasText: 'check' }).waitFor({ timeout: 30_000 });
  expect(await text('debug-executions')).toBe('3');
  expect(await page.locator('.graph-node.selected').getAttribute('data-node')).toBe('check');
  await page.locator('[data-testid="debug-context"]', { hasText: '"i": 1' }).waitFor();

  // The page's URL names the run: a reload comes back to it, paused where it was, its breakpoint drawn.
  expect(page.url()).toMatch(/#\/graphs\/slow_loop\/debug\/.+/);
  await page.reload();
  await statusIs('paused');
  expect(await text('debug-current')).toBe('check');
  expect(await text('debug-executions')).toBe('3');
  await page.locator('.graph-node.breakpoint[data-node="count"]').waitFor();

  // Resume: the breakpoint holds the next iteration at count again (check, wait ran: 5 executions).
  await button('Resume').click();
  await page.locator('[data-testid="debug-executions"]', { hasText: /^5$/ }).waitFor({ timeout: 30_000 });
  await statusIs('paused');
  expect(await text('debug-current')).toBe('count');

  // Clear the breakpoint (a click on the node, sent to the run) and resume: the run finishes.
  await node('count').click();
  await page.locator('.graph-node.breakpoint').waitFor({ state: 'detached' });
  await page.locator('[data-testid="debug-panel"]').getByText('No breakpoints').waitFor();
  await button('Resume').click();
  await statusIs('finished');
  const result = JSON.parse(await page.locator('[data-testid="debug-result"] pre').textContent() ?? 'null');
  expect(result).toEqual(plain.structuredContent);
  expect(result).toEqual({ iterations: ITERATIONS, waits: ITERATIONS, last: 'done' });
  expect(await text('debug-executions')).toBe(String(1 + ITERATIONS * 3 + 2));
  for (const b of ['Pause', 'Step', 'Resume', 'Stop']) expect(await button(b).isDisabled()).toBe(true);
  await page.locator('[data-testid="debug-panel"]').screenshot({ path: screenshotPath('dashboard-debugger-finished') });

  // Recorded like any run: the run page shows it completed, run by the dashboard's caller.
  const runHref = await page.locator('[data-testid="debug-panel"] a[href^="#/runs/"]').first().getAttribute('href');
  await page.goto(`${dash.url}${runHref}`);
  await page.locator('[data-testid="run-status"]', { hasText: 'completed' }).waitFor({ timeout: 30_000 });
  expect(await page.locator('[data-testid="run-actor"]').textContent()).toBe('local (dashboard)');
  expect(dash.stderr()).toMatch(/"action":"debug_step".*"msg":"dashboard action"/);
});

test('another run held at its entry is stopped: it ends stopped and is recorded stopped', async () => {
  await page.goto(`${dash.url}#/graphs/slow_loop`);
  const form = page.locator('[data-testid="run-form"]');
  await form.waitFor({ timeout: 30_000 });
  await form.locator('input[name="n"]').fill('50');
  await form.getByLabel('pause at the entry node').check();
  await form.getByRole('button', { name: 'Debug' }).click();
  await statusIs('paused');
  expect(await text('debug-current')).toBe('entry');
  expect(await text('debug-executions')).toBe('0');
  await page.locator('[data-testid="debug-history"]').waitFor({ state: 'detached' });
  await page.locator('[data-testid="debug-panel"]').getByText('Nothing has run yet.').waitFor();
  const runHref = (await page.locator('[data-testid="debug-panel"] a[href^="#/runs/"]').first().getAttribute('href'))!;
  const runId = runHref.slice('#/runs/'.length);
  // Its run page (live: paused at entry) leads back to its controls.
  await page.goto(`${dash.url}${runHref}`);
  await page.locator('[data-testid="run-status"]', { hasText: 'paused' }).waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="debug-run-link"] a').click();
  await statusIs('paused');
  expect(await text('debug-current')).toBe('entry');
  await button('Stop').click();
  await statusIs('stopped');
  for (const b of ['Pause', 'Step', 'Resume', 'Stop']) expect(await button(b).isDisabled()).toBe(true);
  // The page's list of recorded runs shows it stopped (its final record, heard through the live stream).
  await page.locator(`[data-testid="runs"] tr:has(a[href="${runHref}"]) .run-status.stopped`).waitFor({ timeout: 30_000 });
  const recorded = await (await fetch(`${dash.origin}/api/runs/${runId}`, { headers: { Authorization: `Bearer ${dash.token}` } })).json();
  expect(recorded).toMatchObject({ status: 'stopped', nodeExecutions: 0, actor: { name: 'local', client: 'dashboard' } });
});

test('errors in one line: arguments that are not JSON (refused on the page), arguments the tool refuses (the run fails)', async () => {
  await page.goto(`${dash.url}#/graphs/slow_loop`);
  const form = page.locator('[data-testid="run-form"]');
  await form.waitFor({ timeout: 30_000 });
  await form.getByRole('button', { name: 'Edit as JSON' }).click();
  const json = form.locator('textarea[name="args-json"]');
  await json.fill('{"n": ');
  await form.getByRole('button', { name: 'Debug' }).click();
  const alert = form.getByRole('alert');
  await alert.waitFor();
  expect(await alert.textContent()).toMatch(/^arguments: not valid JSON \(.+\)$/);
  expect(await page.locator('[data-testid="debug-status"]').count()).toBe(0);

  // The engine checks the arguments at the entry node: the debug run ends in error, its message in one line.
  await json.fill('{"n": "three"}');
  await form.getByRole('button', { name: 'Debug' }).click();
  await statusIs('error');
  const message = (await page.locator('[data-testid="debug-run-error"]').textContent()) ?? '';
  expect(message).toContain("tool 'slow_loop': invalid arguments");
  expect(message).not.toContain('\n');
  for (const b of ['Pause', 'Step', 'Resume', 'Stop']) expect(await button(b).isDisabled()).toBe(true);
  await page.locator('.workbench').screenshot({ path: screenshotPath('dashboard-debugger-error') });
});

test('a read-only dashboard offers no debugger: no form, no Debug button, no breakpoints on click', async () => {
  await page.goto(`${readOnly.url}#/graphs/slow_loop`);
  await node('count').waitFor({ timeout: 30_000 });
  await node('count').click();
  expect(await page.locator('[data-testid="run-form"]').count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Debug' }).count()).toBe(0);
  expect(await page.locator('.graph-node.breakpoint').count()).toBe(0);
  expect(await page.locator('[data-testid="debug-panel"]').count()).toBe(0);
});
