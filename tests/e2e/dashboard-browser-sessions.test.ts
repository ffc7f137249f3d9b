/**
 * Workflow sessions in the dashboard, in headless Chromium: the bundled fix-failing-test workflow driven to the end
 * through the real MCP server (a skipped step, a loop run twice), and a session forked from a checkpoint.
 * The progress is the workflow module's one count: the list, the page and workflow_session agree; the page shows the
 * head branch with the other branch reachable; notes are Markdown, rendered without raw HTML.
 */
import type { Page } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient, tempDir } from './helpers/server-process';
import { startDashboardProcess, waitForApi, type DashboardProcess } from './helpers/dashboard-process';
import { call } from './helpers/dashboard-seed';
import { launchBrowser, screenshotPath, type Browser } from '../helpers/browser';

jest.setTimeout(180_000);

let data: { dir: string; cleanup: () => void };
let mcp: { client: Client; close: () => Promise<void> };
let dash: DashboardProcess;
let browser: Browser;
let page: Page;
let complete: string;
let forked: string;

const XSS_NOTES = 'Found it:\n- `src/sum.ts:12` adds one\n- the test is right\n\n<img src="x" onerror="window.__xss = 1"> [click](javascript:window.__xss=2)';

/** Runs fix-failing-test to the end: reproduce (deterministic, so `stabilise` is skipped), the loop twice, the rest. */
async function completeFixFailingTest(client: Client): Promise<string> {
  const s = await call(client, 'workflow_start', { workflowId: 'fix-failing-test', goal: 'the sum test fails' });
  let token = s.continueToken as string;
  const step = async (notesMarkdown: string, context?: Record<string, unknown>) => {
    const r = await call(client, 'workflow_continue', { continueToken: token, output: { notesMarkdown }, ...(context ? { context } : {}) });
    if (r.status === 'blocked') throw new Error(JSON.stringify(r.blockers));
    token = r.continueToken as string;
    return r;
  };
  await step('The test failed: expected 10, got 11', { testCommand: 'npm test -- sum', failureKind: 'deterministic' });
  await step(XSS_NOTES);
  await step('Attempt 1: the loop bound is off by one, so use < instead of <=.');
  await step('The test still fails after the change', { testPasses: false });
  await step('Attempt 2: the accumulator starts at 1; start it at 0 instead.');
  await step('The test passes now', { testPasses: true });
  await step('All 120 tests passed');
  const last = await step('Fix the sum\n\nThe root cause: the accumulator started at 1.');
  expect(last.status).toBe('complete');
  return s.sessionId as string;
}

/** A session forked from a checkpoint: the abandoned branch did `locate` and a hypothesis; the head did `locate` again. */
async function forkedSession(client: Client): Promise<string> {
  const s = await call(client, 'workflow_start', { workflowId: 'fix-failing-test', goal: 'a forked session' });
  const reproduced = await call(client, 'workflow_continue', {
    continueToken: s.continueToken,
    output: { notesMarkdown: 'The test failed: expected 3' },
    context: { testCommand: 'npm test', failureKind: 'deterministic' },
  });
  const checkpoint = await call(client, 'workflow_checkpoint', { continueToken: reproduced.continueToken, note: 'before locating' });
  const located = await call(client, 'workflow_continue', { continueToken: reproduced.continueToken, output: { notesMarkdown: 'ABANDONED locate: src/a.ts:1' } });
  await call(client, 'workflow_continue', { continueToken: located.continueToken, output: { notesMarkdown: 'ABANDONED hypothesis: it is the cache, clearly.' } });
  const again = await call(client, 'workflow_continue', { continueToken: checkpoint.checkpointToken, output: { notesMarkdown: 'KEPT locate: src/b.ts:2' } });
  expect(again.status).toBe('advanced');
  return s.sessionId as string;
}

beforeAll(async () => {
  data = tempDir('wg-dash-sessions-');
  mcp = await connectClient({ dataDir: data.dir });
  complete = await completeFixFailingTest(mcp.client);
  forked = await forkedSession(mcp.client);
  dash = await startDashboardProcess({ dataDir: data.dir });
  await waitForApi(dash, `/sessions/${forked}`);
  browser = await launchBrowser();
  page = await browser.context.newPage();
  await page.goto(dash.url);
});

afterAll(async () => {
  await browser?.close();
  await dash?.stop();
  await mcp?.close();
  data?.cleanup();
});

test('a complete looped session is 5 of 5 steps on the list, the page and in workflow_session; its loop is done', async () => {
  const timeline = await call(mcp.client, 'workflow_session', { sessionId: complete });
  expect(timeline.progress).toMatchObject({ done: 5, total: 5, skipped: 1 });
  expect(timeline.progress.steps.find((s: { stepId: string }) => s.stepId === 'fix-attempts').state).toBe('done');
  const listed = await call(mcp.client, 'workflow_sessions', {});
  expect(listed.sessions.find((s: { sessionId: string }) => s.sessionId === complete).progress).toEqual({ done: 5, total: 5, skipped: 1 });

  await page.goto(`${dash.url}#/sessions`);
  const row = page.locator('[data-testid="sessions"] tr', { hasText: complete });
  await row.waitFor({ timeout: 30_000 });
  await expect(row.locator('[data-testid="session-progress"]').textContent()).resolves.toMatch(/^5 of 5 steps \(1 skipped\)/);
  // An active session shows its progress too, never a dash.
  const active = page.locator('[data-testid="sessions"] tr', { hasText: forked });
  await expect(active.locator('[data-testid="session-progress"]').textContent()).resolves.toMatch(/^2 of 5 steps \(1 skipped\)/);
  await page.screenshot({ path: screenshotPath('dashboard-sessions') });

  await page.goto(`${dash.url}#/sessions/${complete}`);
  await page.locator('[data-testid="progress"]').waitFor({ timeout: 30_000 });
  await expect(page.locator('[data-testid="progress"]').textContent()).resolves.toBe('5 of 5 steps (1 skipped)');
  const state = (id: string) => page.locator(`[data-testid="steps"] .step[data-step="${id}"]`).getAttribute('data-state');
  await expect(state('fix-attempts')).resolves.toBe('done');
  await expect(state('stabilise')).resolves.toBe('skipped');
  await expect(state('explain')).resolves.toBe('done');
  // The loop's notes say which iteration they are of.
  await expect(page.locator('.step[data-step="fix-attempts"] .note-label').allTextContents()).resolves.toEqual([
    'iteration 1 · State a hypothesis', 'iteration 1 · Apply the fix and rerun', 'iteration 2 · State a hypothesis', 'iteration 2 · Apply the fix and rerun',
  ]);
});

test('notes and the completion summary are Markdown: lists and code render, raw HTML and javascript: links do not', async () => {
  await page.goto(`${dash.url}#/sessions/${complete}`);
  const locate = page.locator('.step[data-step="locate"] .markdown');
  await locate.waitFor({ timeout: 30_000 });
  await expect(locate.locator('li').allTextContents()).resolves.toEqual(['src/sum.ts:12 adds one', 'the test is right']);
  await expect(locate.locator('code').first().textContent()).resolves.toBe('src/sum.ts:12');
  // The tag is shown as text; no element was made of it and no script ran.
  await expect(locate.locator('img').count()).resolves.toBe(0);
  await expect(locate.textContent()).resolves.toContain('<img src="x" onerror="window.__xss = 1">');
  await expect(page.locator('.markdown a[href^="javascript:"]').count()).resolves.toBe(0);
  await expect(page.evaluate(() => (globalThis as any).__xss)).resolves.toBeUndefined();
  // The summary's lines are a list, not one run-on line.
  const summary = page.locator('[data-testid="session-summary"] .markdown');
  await expect(summary.locator('li').count()).resolves.toBeGreaterThan(3);
  // The summary counts steps as the progress does.
  await expect(summary.textContent()).resolves.toContain('5 of 5 steps done (1 skipped)');
  await page.screenshot({ path: screenshotPath('dashboard-session-markdown'), fullPage: true });
});

test('after a fork the page shows the head branch; the branch left is one click away', async () => {
  await page.goto(`${dash.url}#/sessions/${forked}`);
  const steps = page.locator('[data-testid="steps"]');
  await steps.waitFor({ timeout: 30_000 });
  const text = async (id: string) => (await page.locator(`.step[data-step="${id}"]`).textContent()) ?? '';
  await expect(text('locate')).resolves.toContain('KEPT locate');
  await expect(text('locate')).resolves.not.toContain('ABANDONED');
  await expect(page.locator('.step[data-step="fix-attempts"]').getAttribute('data-state')).resolves.toBe('current');
  await expect(text('fix-attempts')).resolves.not.toContain('ABANDONED');
  await expect(page.locator('[data-testid="progress"]').textContent()).resolves.toBe('2 of 5 steps (1 skipped)');

  const branches = page.locator('[data-testid="branches"] button');
  await expect(branches.count()).resolves.toBe(2);
  await expect(branches.first().getAttribute('aria-pressed')).resolves.toBe('true');
  await branches.nth(1).click();
  await page.locator('[data-testid="branch-notice"]').waitFor();
  await expect(text('locate')).resolves.toContain('ABANDONED locate');
  await expect(text('fix-attempts')).resolves.toContain('ABANDONED hypothesis');
  await expect(branches.nth(1).textContent()).resolves.toContain('parted after Reproduce the failure');
  await page.screenshot({ path: screenshotPath('dashboard-session-branch'), fullPage: true });
  await branches.first().click();
  await expect(text('locate')).resolves.not.toContain('ABANDONED');
});
