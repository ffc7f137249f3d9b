/**
 * The task page shows the living plan, in headless Chromium at 900 px wide: a task claimed through the MCP client
 * (claim_next_task with an agent name) shows its claimant, when the claim lapses and its priority without a reload; an
 * update_task (tags, priority, a reason) turns up in the plan's recent changes and in the task's own history; each
 * transition names its actor (identity and MCP client).
 */
import type { Page } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient, tempDir } from './helpers/server-process';
import { startDashboardProcess, waitForApi, type DashboardProcess } from './helpers/dashboard-process';
import { call } from './helpers/dashboard-seed';
import { launchBrowser, screenshotPath, type Browser } from '../helpers/browser';

jest.setTimeout(180_000);

let data: { dir: string; cleanup: () => void };
let root: { dir: string; cleanup: () => void };
let mcp: { client: Client; close: () => Promise<void> };
let dash: DashboardProcess;
let browser: Browser;
let page: Page;

const PLAN = [
  { id: 'docs', title: 'Write the docs', depends_on: [], priority: 'low' },
  { id: 'api', title: 'Build the API', depends_on: [], priority: 'high', tags: ['backend'] },
  { id: 'ui', title: 'Build the UI', depends_on: ['api'] },
];

beforeAll(async () => {
  data = tempDir('wg-dash-plan-');
  root = tempDir('wg-dash-plan-root-');
  mcp = await connectClient({ dataDir: data.dir, args: ['--allow-root', root.dir] });
  await call(mcp.client, 'init_project_graph', { projectName: 'Plan', projectRoot: root.dir, nodes: PLAN });
  dash = await startDashboardProcess({ dataDir: data.dir });
  await waitForApi(dash, '/projects/plan/tasks');
  browser = await launchBrowser({ width: 900, height: 800 });
  page = await browser.context.newPage();
});

afterAll(async () => {
  await browser?.close();
  await dash?.stop();
  await mcp?.close();
  root?.cleanup();
  data?.cleanup();
});

test('a claim and an edit by an agent show on the open task page without a reload', async () => {
  await page.goto(`${dash.url}#/tasks/plan`);
  await page.locator('[data-task="api"]').click();
  const details = page.locator('[data-testid="task-details"]');
  await expectText(details.locator('[data-testid="task-priority"]'), 'high');
  await expectText(details.locator('[data-testid="task-tags"]'), 'backend');
  await expectText(details.locator('[data-testid="task-claim"]'), 'nobody');
  await details.locator('[data-testid="task-history"]').waitFor();

  const claimed = await call(mcp.client, 'claim_next_task', { project: 'Plan', agent: 'agent-a' });
  expect(claimed.claimed).toBe(true);
  // The high-priority task is taken first; the open page turns it IN_PROGRESS and names the claimant.
  await page.locator('[data-task="api"][data-status="IN_PROGRESS"]').waitFor({ timeout: 10_000 });
  await expectText(details.locator('[data-testid="task-claim"]'), 'agent-a');
  await expectText(details.locator('[data-testid="task-claim-lapse"]'), 'in ');
  await expectText(details.locator('[data-testid="task-priority"]'), 'high');
  // Each status change names who made it: the identity (stdio: local) and the MCP client it called through.
  const start = details.locator('[data-testid="transitions"] li[data-to="IN_PROGRESS"] [data-testid="transition-actor"]');
  await expectText(start, 'by local');
  await expectText(start, 'via workgraph-e2e');
  await expectText(details.locator('[data-testid="transitions"] li').first(), 'created as');

  await call(mcp.client, 'update_task', { project: 'Plan', nodeId: 'api', agent: 'agent-a', priority: 'medium', tags: ['backend', 'urgent'], reason: 'the API waits on a review' });
  await expectText(details.locator('[data-testid="task-priority"]'), 'medium');
  await expectText(details.locator('[data-testid="task-tags"]'), 'urgent');
  const own = details.locator('[data-testid="task-history"] li[data-action="update_task"]');
  await expectText(own, 'the API waits on a review');
  await expectText(own, 'agent-a');
  // Readable at 900 px: the details panel does not scroll sideways.
  const overflow = await details.evaluate((el) => el.scrollWidth - el.clientWidth);
  expect(overflow).toBeLessThanOrEqual(1);
  await page.screenshot({ path: screenshotPath('dashboard-task-claim-900') });

  // The plan's recent changes (in the side column, shown with the details closed at this width).
  await details.locator('button.close').click();
  const recent = page.locator('[data-testid="plan-history"]');
  await expectText(recent.locator('li[data-action="update_task"]'), 'the API waits on a review');
  await expectText(recent.locator('li[data-action="claim_next_task"]'), 'agent-a');
  expect(await recent.locator('li').first().getAttribute('data-action')).toBe('update_task');
});

async function expectText(loc: ReturnType<Page['locator']>, text: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  let last = '';
  while (Date.now() < deadline) {
    last = (await loc.first().textContent().catch(() => '')) ?? '';
    if (last.includes(text)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`expected '${text}' in ${loc.toString()}, got '${last}'`);
}
