/**
 * Issue 20 in the dashboard, in headless Chromium over `serve --http --dashboard` with a named identity: the page shows
 * who made each session event, who wrote a knowledge node and who ran a graph tool (identity and MCP client); a
 * session's page loads its timeline beyond the first page of 200 events ("Load more"), and the
 * `workgraph://sessions/<id>` resource names its next page. Before, none of the three actors was rendered and the page
 * stopped at the first 200 events with no way on.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { HttpServerProcess, type HttpConn } from './helpers/http-server';
import { tempDir } from './helpers/server-process';
import { call, SUM_TO_N } from './helpers/dashboard-seed';
import { launchBrowser, screenshotPath, type Browser } from '../helpers/browser';

jest.setTimeout(180_000);

const TOKEN = 'alice-token-0123456789abcdef';
const CHECKPOINTS = 210;

let tmp: ReturnType<typeof tempDir>;
let server: HttpServerProcess;
let conn: HttpConn;
let browser: Browser;
let page: Page;
let sessionId: string;
let nodeId: string;
let runId: string;
let notesProject: string;

beforeAll(async () => {
  tmp = tempDir('wg-dash-actors-');
  const base = fs.realpathSync(tmp.dir);
  const work = path.join(base, 'work');
  fs.mkdirSync(work);
  const tokens = path.join(base, 'tokens');
  fs.writeFileSync(tokens, `${TOKEN} name=alice roots=${work} scopes=read,write,run\n`);
  server = await HttpServerProcess.start({ dataDir: path.join(base, 'data'), args: ['--auth-token-file', tokens, '--allow-root', base, '--graphs', SUM_TO_N, '--dashboard'] });
  conn = await server.connect({ token: TOKEN, name: 'claude-code' });
  const s = await call(conn.client, 'workflow_start', { workflowId: 'fix-failing-test', goal: 'a long session', workspacePath: work });
  sessionId = s.sessionId as string;
  // Many events: each checkpoint is one (the session_started event is the first).
  for (let i = 0; i < CHECKPOINTS; i++) await call(conn.client, 'workflow_checkpoint', { continueToken: s.continueToken, note: `checkpoint ${i + 1}` });
  const added = await call(conn.client, 'add_nodes', { projectContext: path.join(work, 'notes'), nodes: [{ thought: 'alice wrote this', role: 'actor' }] });
  notesProject = added.project as string;
  nodeId = (added.ids as string[])[0]!;
  const r = await conn.client.callTool({ name: 'sum_to_n', arguments: { n: 3 } });
  runId = (r._meta as Record<string, string>)['workgraph/executionId'];
  browser = await launchBrowser();
  page = await browser.context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await conn?.close();
  server?.kill();
  tmp?.cleanup();
});

const dashboard = (route: string) => `${server.origin}/dashboard/?token=${TOKEN}#/${route}`;

test("a session's page names who made each event and loads the timeline beyond the first 200 events", async () => {
  await page.goto(dashboard(`sessions/${sessionId}`));
  const items = page.locator('[data-testid="session-timeline"] > li');
  await page.locator('[data-testid="load-more"]').waitFor({ timeout: 30_000 });
  await expect(items.count()).resolves.toBe(200);
  await expect(page.locator('[data-testid="timeline-count"]').textContent()).resolves.toBe(`Showing the first 200 of ${CHECKPOINTS + 1} events.`);
  await expect(page.locator('[data-testid="event-actor"]').first().textContent()).resolves.toBe('alice (claude-code)');
  await page.locator('[data-testid="load-more"]').click();
  await page.waitForFunction((n) => (globalThis as any).document.querySelectorAll('[data-testid="session-timeline"] > li').length === n, CHECKPOINTS + 1, { timeout: 30_000 });
  await expect(items.last().textContent()).resolves.toContain(`checkpoint ${CHECKPOINTS}`);
  await expect(page.locator('[data-testid="load-more"]').count()).resolves.toBe(0);
  await expect(page.locator('[data-testid="timeline-count"]').count()).resolves.toBe(0);
  await expect(page.locator('[data-testid="event-actor"]').last().textContent()).resolves.toBe('alice (claude-code)');
  await page.screenshot({ path: screenshotPath('dashboard-session-load-more'), fullPage: false });
});

test('the workgraph://sessions/<id> resource says where its next page is, and that page reads on', async () => {
  const first = JSON.parse(((await conn.client.readResource({ uri: `workgraph://sessions/${sessionId}` })).contents[0] as { text: string }).text);
  expect(first.events).toHaveLength(200);
  expect(first.totalEvents).toBe(CHECKPOINTS + 1);
  expect(first.nextUri).toBe(`workgraph://sessions/${sessionId}?cursor=${first.nextCursor}`);
  const second = JSON.parse(((await conn.client.readResource({ uri: first.nextUri })).contents[0] as { text: string }).text);
  expect(second.events.map((e: { seq: number }) => e.seq)).toEqual(Array.from({ length: CHECKPOINTS + 1 - 200 }, (_, i) => 201 + i));
  expect(second.nextUri).toBeUndefined();
});

test('a knowledge node names who wrote it, a graph run who ran it', async () => {
  await page.goto(dashboard(`knowledge/${notesProject}/${nodeId}`));
  await page.locator('[data-testid="node-actor"]').waitFor({ timeout: 30_000 });
  await expect(page.locator('[data-testid="node-actor"]').textContent()).resolves.toBe('alice (claude-code)');

  await page.goto(dashboard(`runs/${runId}`));
  await page.locator('[data-testid="run-actor"]').waitFor({ timeout: 30_000 });
  await expect(page.locator('[data-testid="run-actor"]').textContent()).resolves.toBe('alice (claude-code)');
  await page.goto(dashboard('graphs/sum_to_n'));
  await page.locator('[data-testid="run-by"]').first().waitFor({ timeout: 30_000 });
  await expect(page.locator('[data-testid="run-by"]').first().textContent()).resolves.toBe('alice (claude-code)');
});
