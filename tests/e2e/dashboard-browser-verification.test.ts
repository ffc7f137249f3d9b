/**
 * Verification runs and audits on a session's dashboard page, in headless Chromium (issue 24): a workflow step with a
 * `verification` command and an `audit` rubric, driven through the built server as a session. The server runs the
 * command in the workspace: the first run fails (exit 3, a line on stderr), the second passes. The page's timeline
 * shows each run with its exit code, duration and a badge saying how it ended (failed, then passed), the output tail on click, and the
 * audit's dimensions with the levels given.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
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
let sessionId: string;
let sentBack: string;

const workflow = {
  id: 'wg.build-and-ship',
  name: 'Build and ship',
  description: 'A step proven by a command, then audited.',
  version: '1.0.0',
  steps: [
    {
      id: 'build',
      title: 'Build',
      prompt: 'Build the thing: write built.txt.',
      verification: { command: 'test -f built.txt || { echo "built.txt is missing" >&2; exit 3; }', prompt: 'built.txt must exist' },
      audit: { rubric: [{ id: 'tests', criterion: 'The change has tests' }, { id: 'docs', criterion: 'The docs say what changed', bar: 'partial' }] },
    },
    { id: 'ship', title: 'Ship', prompt: 'Ship it.' },
  ],
};

beforeAll(async () => {
  data = tempDir('wg-dash-verify-');
  const workflows = path.join(data.dir, 'workflows');
  const workspace = path.join(data.dir, 'repo');
  fs.mkdirSync(workflows);
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workflows, 'build.json'), JSON.stringify(workflow));
  const dataDir = path.join(data.dir, 'data');
  mcp = await connectClient({ dataDir, args: ['--workflows', workflows] });
  const started = await call(mcp.client, 'workflow_start', { workflowId: workflow.id, workspacePath: workspace, goal: 'prove the build' });
  sessionId = started.sessionId as string;
  const built = await call(mcp.client, 'workflow_continue', { continueToken: started.continueToken, output: { notesMarkdown: 'Built it.' } });
  expect(built.step).toMatchObject({ id: 'build__verification', verificationCommand: { runsOn: 'server' } });
  // The server runs the command in the workspace: built.txt is missing (exit 3), then it is there (exit 0).
  const failed = await call(mcp.client, 'workflow_continue', { continueToken: built.continueToken, output: { notesMarkdown: 'Run it.' } });
  expect(failed.status).toBe('blocked');
  fs.writeFileSync(path.join(workspace, 'built.txt'), 'ok\n');
  const verified = await call(mcp.client, 'workflow_continue', { continueToken: failed.retryToken ?? built.continueToken, output: { notesMarkdown: 'Run it again.' } });
  expect(verified.step.id).toBe('build__audit');
  const audited = await call(mcp.client, 'workflow_continue', {
    continueToken: verified.continueToken,
    output: { notesMarkdown: 'Audited.', artifacts: [{ kind: 'wr.assessment', assessmentId: 'build__audit', dimensions: { tests: 'pass', docs: 'partial' } }] },
  });
  expect(audited.step.id).toBe('ship');
  // A second run whose audit rates the tests below the bar: the run goes back to the audited step.
  const again = await call(mcp.client, 'workflow_start', { workflowId: workflow.id, workspacePath: workspace, goal: 'an audit below its bar' });
  sentBack = again.sessionId as string;
  const b2 = await call(mcp.client, 'workflow_continue', { continueToken: again.continueToken, output: { notesMarkdown: 'Built it.' } });
  const v2 = await call(mcp.client, 'workflow_continue', { continueToken: b2.continueToken, output: { notesMarkdown: 'Run it.' } });
  expect(v2.step.id).toBe('build__audit');
  const low = await call(mcp.client, 'workflow_continue', {
    continueToken: v2.continueToken,
    output: { notesMarkdown: 'No tests at all.', artifacts: [{ kind: 'wr.assessment', assessmentId: 'build__audit', dimensions: { tests: 'fail', docs: 'pass' } }] },
  });
  expect(low.step.id).toBe('build');
  dash = await startDashboardProcess({ dataDir });
  await waitForApi(dash, `/sessions/${sessionId}`);
  browser = await launchBrowser();
  page = await browser.context.newPage();
});

afterAll(async () => {
  await browser?.close();
  await dash?.stop();
  await mcp?.close();
  data?.cleanup();
});

test('the timeline shows each verification run (exit code, duration, badge; the tail on click) and the audit ratings', async () => {
  await page.goto(`${dash.url}#/sessions/${sessionId}`);
  const runs = page.locator('[data-testid="session-timeline"] [data-testid="verification-run"]');
  await runs.first().waitFor({ timeout: 30_000 });
  await expect(runs.count()).resolves.toBe(2);
  await expect(runs.nth(0).getAttribute('data-verified')).resolves.toBe('false');
  // The server ran it and it failed: "failed" ("unverified" is only for a command handed to the agent).
  await expect(runs.nth(0).locator('.badge').textContent()).resolves.toBe('failed');
  await expect(runs.nth(0).getAttribute('data-badge')).resolves.toBe('failed');
  await expect(runs.nth(0).textContent()).resolves.toMatch(/exit 3 · \d+ ms · attempt 1/);
  await expect(runs.nth(1).getAttribute('data-verified')).resolves.toBe('true');
  await expect(runs.nth(1).locator('.badge').textContent()).resolves.toBe('passed');
  await expect(runs.nth(1).textContent()).resolves.toMatch(/^passed.*exit 0 · \d+ ms · attempt 2/);
  // The labels of the entries say what was verified and how it ended.
  const labels = await page.locator('[data-testid="session-timeline"] > li.tl-verification').allTextContents();
  expect(labels[0]).toMatch(/^verification verification of build \(attempt 1\): exit 3 in \d+ ms/);

  // The output tail is one click away, not on the page until then.
  const tail = runs.nth(0).locator('[data-testid="stderr-tail"]');
  await expect(tail.isVisible()).resolves.toBe(false);
  await runs.nth(0).locator('summary').click();
  await expect(tail.isVisible()).resolves.toBe(true);
  await expect(tail.textContent()).resolves.toContain('built.txt is missing');

  const audit = page.locator('[data-testid="session-timeline"] [data-testid="audit"]');
  await expect(audit.count()).resolves.toBe(1);
  await expect(audit.locator('[data-dimension]').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-dimension')}=${e.getAttribute('data-level')}`))).resolves.toEqual(['tests=pass', 'docs=partial']);
  await page.locator('[data-testid="session-timeline"]').scrollIntoViewIfNeeded();
  await page.screenshot({ path: screenshotPath('dashboard-session-verification'), fullPage: true });
});

test('an audit below its bar is shown with its ratings where the run went back to the audited step', async () => {
  await page.goto(`${dash.url}#/sessions/${sentBack}`);
  const entry = page.locator('[data-testid="session-timeline"] > li.tl-audit', { hasText: 'below its bar' });
  await entry.waitFor({ timeout: 30_000 });
  await expect(entry.locator('[data-dimension]').evaluateAll((els) => els.map((e) => `${e.getAttribute('data-dimension')}=${e.getAttribute('data-level')}`))).resolves.toEqual(['tests=fail', 'docs=pass']);
});
