/**
 * A page opened by URL misses no change made between its first fetch and its event stream: a real `workgraph
 * dashboard` (its own process) over a data dir, the task page opened by URL in headless Chromium with the page's event
 * stream held back by a route (so the window is certain, not a race); once the page shows the plan, an agent claims a
 * task through the real MCP server (another process); only when the dashboard has told of that change (to a stream
 * of the test's own) is the page's stream let through. The page then shows the claim, with no change after it. Before
 * the change counter (docs/architecture.md "The change counter") it showed READY until the next change.
 */
import * as http from 'node:http';
import type { Page, Route } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient, tempDir } from './helpers/server-process';
import { startDashboardProcess, waitForApi, type DashboardProcess } from './helpers/dashboard-process';
import { call } from './helpers/dashboard-seed';
import { launchBrowser, type Browser } from '../helpers/browser';

jest.setTimeout(180_000);

let data: { dir: string; cleanup: () => void };
let root: { dir: string; cleanup: () => void };
let mcp: { client: Client; close: () => Promise<void> };
let dash: DashboardProcess;
let browser: Browser;
let page: Page;
const streams: http.ClientRequest[] = [];

beforeAll(async () => {
  data = tempDir('wg-dash-first-');
  root = tempDir('wg-dash-first-root-');
  mcp = await connectClient({ dataDir: data.dir, args: ['--allow-root', root.dir] });
  await call(mcp.client, 'init_project_graph', {
    projectName: 'Window',
    projectRoot: root.dir,
    nodes: [{ id: 'api', title: 'Build the API', depends_on: [] }],
  });
  dash = await startDashboardProcess({ dataDir: data.dir });
  await waitForApi(dash, '/projects/window/tasks');
  browser = await launchBrowser();
  page = await browser.context.newPage();
});

afterAll(async () => {
  for (const s of streams) s.destroy();
  await browser?.close();
  await dash?.stop();
  await mcp?.close();
  root?.cleanup();
  data?.cleanup();
});

/**
 * The dashboard's event stream, read by the test: `open` once the dashboard answered it (registered: it hears every
 * change from then on), `heard` at the first change event `wanted` accepts.
 */
function testStream(wanted: (e: { kind: string; project?: string }) => boolean): { open: Promise<void>; heard: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  const heard = new Promise<void>((resolve, reject) => {
    const req = http.get(`${dash.origin}/api/events?token=${encodeURIComponent(dash.token)}`, (res) => {
      expect(res.statusCode).toBe(200);
      open();
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = /^event: change\ndata: (.*)$/m.exec(frame);
          if (data && wanted(JSON.parse(data[1]))) resolve();
        }
      });
    });
    req.on('error', reject);
    streams.push(req);
  });
  return { open: opened, heard };
}

test('a change made after the first fetch and before the event stream opens shows without another change', async () => {
  // The page's event stream waits here until the test lets it through.
  let held!: () => void;
  const streamHeld = new Promise<void>((r) => (held = r));
  let letThrough!: () => void;
  const released = new Promise<void>((r) => (letThrough = r));
  await page.route('**/api/events?**', async (route: Route) => {
    held();
    await released;
    await route.continue();
  });

  await page.goto(`${dash.url}#/tasks/window`);
  await page.locator('[data-task="api"][data-status="READY"]').waitFor();
  await streamHeld;

  // The change, in the window: after the page's data was read, before its stream is registered.
  const mine = testStream((e) => e.kind === 'tasks' && e.project === 'window');
  await mine.open;
  const claimed = await call(mcp.client, 'claim_next_task', { project: 'Window', agent: 'agent-a' });
  expect(claimed.claimed).toBe(true);
  await mine.heard;
  expect(await page.locator('[data-task="api"]').getAttribute('data-status')).toBe('READY');

  letThrough();
  await page.locator('[data-testid="live"].on').waitFor();
  await page.locator('[data-task="api"][data-status="IN_PROGRESS"]').waitFor({ timeout: 15_000 });
});

/** An API answer's change count (`X-Workgraph-Changes: instance:count`). */
async function answeredAt(pathname: string): Promise<{ instance: string; count: number }> {
  const r = await fetch(`${dash.origin}/api${pathname}`, { headers: { Authorization: `Bearer ${dash.token}` } });
  expect(r.status).toBe(200);
  const m = /^([0-9a-f]+):(\d+)$/.exec(r.headers.get('x-workgraph-changes') ?? '');
  expect(m).not.toBeNull();
  return { instance: m![1], count: Number(m![2]) };
}

/** The first event of a new stream of the dashboard's: `event: opened` with the count it opened at. */
function streamOpensAt(): Promise<{ instance: string; count: number }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${dash.origin}/api/events?token=${encodeURIComponent(dash.token)}`, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        const end = buffer.indexOf('\n\n', buffer.indexOf('event: '));
        if (buffer.indexOf('event: ') < 0 || end < 0) return;
        const frame = /event: (\w+)\ndata: (.*)/.exec(buffer.slice(0, end));
        expect(frame?.[1]).toBe('opened');
        resolve(JSON.parse(frame![2]));
        req.destroy();
      });
    });
    req.on('error', reject);
    streams.push(req);
  });
}

test('every API answer carries the change count it was read at, and a stream opens by stating its count', async () => {
  const before = await answeredAt('/projects/window/tasks');
  const opened = await streamOpensAt();
  expect(opened.instance).toBe(before.instance);
  expect(opened.count).toBeGreaterThanOrEqual(before.count);

  const mine = testStream((e) => e.kind === 'tasks' && e.project === 'window');
  await mine.open;
  await call(mcp.client, 'update_task', { project: 'Window', nodeId: 'api', agent: 'agent-a', priority: 'high', reason: 'count it' });
  await mine.heard;
  // Counted once told of: every answer and stream from now on states a higher count, on every endpoint.
  for (const p of ['/meta', '/overview', '/projects/window/tasks']) expect((await answeredAt(p)).count).toBeGreaterThan(opened.count);
  const reopened = await streamOpensAt();
  expect(reopened).toEqual({ instance: before.instance, count: expect.any(Number) });
  expect(reopened.count).toBeGreaterThan(opened.count);
});
