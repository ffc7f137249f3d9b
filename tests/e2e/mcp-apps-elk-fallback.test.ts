/**
 * How a view lays a graph out when ELK's worker script (read through the host: ui://workgraph/assets/elk-worker.js.gz)
 * does not come, end to end — the real built server read by the SDK's v2 client as the host, the extension SDK's
 * AppBridge framing the task DAG view in headless Chromium (tests/e2e/helpers/apps-host): a read that fails is tried
 * again before the view gives up; where it gives up, or where ELK cannot run at all (a frame that allows no worker, a
 * host that passes no resource reads), the DAG is still drawn, laid out without ELK, with a notice saying why that
 * is readable whole in a 400 px frame, and — where another try may help — a Retry that reads the script again.
 */
import type { Client } from '@modelcontextprotocol/client';
import { tempDir } from './helpers/server-process';
import { connectHost, cutLines, type HostedView, hostView, lowContrast, type ReadResource, readsThrough, readViewHtml, until } from './helpers/apps-host';
import { launchBrowser, screenshotPath, type Browser } from '../helpers/browser';

jest.setTimeout(Number(process.env.APPS_TEST_TIMEOUT ?? 180_000));

type Json = Record<string, any>;
let data: { dir: string; cleanup: () => void };
let root: { dir: string; cleanup: () => void };
let host: { client: Client; close: () => Promise<void> };
let browser: Browser;
let html: string;
let result: Json;

const ELK_WORKER_URI = 'ui://workgraph/assets/elk-worker.js.gz';
const TASKS = [
  { id: 'setup', title: 'Set up the repository', depends_on: [] },
  { id: 'parser', title: 'Build the parser', depends_on: ['setup'] },
  { id: 'docs', title: 'Write the docs', depends_on: ['setup'] },
  { id: 'cli', title: 'Command line', depends_on: ['parser'] },
  { id: 'release', title: 'Release 1.0', depends_on: ['parser', 'docs', 'cli'] },
];
const EDGES = TASKS.reduce((n, t) => n + t.depends_on.length, 0);
const LINEAR = 'edges go from layer to layer, not around the tasks between';

beforeAll(async () => {
  data = tempDir('wg-apps-elk-');
  root = tempDir('wg-apps-elk-root-');
  host = await connectHost({ dataDir: data.dir, args: ['--allow-root', root.dir] });
  const init = await host.client.callTool({ name: 'init_project_graph', arguments: { projectName: 'Parser', projectRoot: root.dir, nodes: TASKS } });
  expect(init.isError).toBeFalsy();
  result = (await host.client.callTool({ name: 'get_project_graph', arguments: { project: 'Parser' } })) as Json;
  html = await readViewHtml(host.client, 'task-dag');
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  data?.cleanup();
  root?.cleanup();
});

const open = (o: { html?: string; width?: number; readResource?: ReadResource | null }) =>
  hostView(browser, {
    html: o.html ?? html,
    result,
    width: o.width ?? 1200,
    height: 640,
    callTool: async (name, a) => (await host.client.callTool({ name, arguments: a })) as Json,
    ...(o.readResource === null ? {} : { readResource: o.readResource ?? readsThrough(host.client) }),
  });

/** A host whose first `failures` reads of a resource fail (the server's answer lost on the way), then pass on. */
function failingFirst(failures: number): ReadResource {
  let left = failures;
  const through = readsThrough(host.client);
  return async (uri) => {
    if (left > 0) {
      left--;
      throw new Error('the connection to the server was reset');
    }
    return through(uri);
  };
}

const routed = (v: HostedView) => v.view.locator('.react-flow__edge-routed').count();
const notice = (v: HostedView) => v.view.locator('[data-testid="layout-notice"]');

test('a read of ELK\'s script that fails is tried again: the DAG is laid out by ELK, no notice', async () => {
  const v = await open({ readResource: failingFirst(1) });
  try {
    await until(() => routed(v), (n) => expect(n).toBe(EDGES), 20_000);
    expect(await v.reads()).toEqual([ELK_WORKER_URI, ELK_WORKER_URI]);
    expect(await notice(v).count()).toBe(0);
    expect(await v.view.locator('[role="alert"]').count()).toBe(0);
  } finally {
    await v.close();
  }
});

test('reads that keep failing give the linear layout and a notice with Retry, readable whole at 400 px; Retry reads again and ELK lays it out', async () => {
  const v = await open({ readResource: failingFirst(3), width: 400 });
  try {
    await notice(v).waitFor({ timeout: 20_000 });
    // Three tries (the first and two more after a short wait), then the layout without ELK.
    expect(await v.reads()).toEqual([ELK_WORKER_URI, ELK_WORKER_URI, ELK_WORKER_URI]);
    // (The narrow canvas draws the tasks on screen and their edges.)
    await until(() => v.view.locator('.react-flow__edge').count(), (n) => expect(n).toBeGreaterThan(0));
    expect(await routed(v)).toBe(0);
    expect(await notice(v).textContent()).toBe(`Laid out without ELK (the host could not read ${ELK_WORKER_URI}: the connection to the server was reset): ${LINEAR}. Retry`);
    expect(await cutLines(v.view)).toEqual([]);
    expect(await v.view.locator('[role="alert"]').count()).toBe(0);
    await v.page.screenshot({ path: screenshotPath('mcp-apps-task-dag-read-failed-400') });

    await v.view.locator('[data-testid="layout-retry"]').click();
    await until(() => routed(v), (n) => expect(n).toBeGreaterThan(0), 20_000);
    expect(await routed(v)).toBe(await v.view.locator('.react-flow__edge').count());
    expect(await notice(v).count()).toBe(0);
    expect(await v.reads()).toHaveLength(4);
  } finally {
    await v.close();
  }
});

test('a frame whose CSP allows no worker still draws the DAG, layered without ELK, and says why (no Retry: it would not help)', async () => {
  const noWorkers = html.replace('worker-src blob:', "worker-src 'none'");
  expect(noWorkers).not.toBe(html);
  const v = await open({ html: noWorkers });
  try {
    await until(() => v.view.locator('.react-flow__edge').count(), (n) => expect(n).toBe(EDGES));
    expect(await v.view.locator('.react-flow__node').count()).toBe(TASKS.length);
    expect(await routed(v)).toBe(0);
    // The script was read through the host; the worker it would have become was refused by the frame's policy.
    expect(await v.reads()).toEqual([ELK_WORKER_URI]);
    expect(await notice(v).textContent()).toBe(`Laid out without ELK (this frame's policy allows no worker): ${LINEAR}.`);
    expect(await v.view.locator('[data-testid="layout-retry"]').count()).toBe(0);
    expect(await v.view.locator('[role="alert"]').count()).toBe(0);
  } finally {
    await v.close();
  }
});

test('a host that passes no resource reads gets the linear layout with a notice, not an error; at 400 px it wraps, its whole text visible', async () => {
  const v = await open({ readResource: null });
  try {
    await until(() => v.view.locator('.react-flow__edge').count(), (n) => expect(n).toBe(EDGES));
    expect(await v.view.locator('.react-flow__node').count()).toBe(TASKS.length);
    expect(await routed(v)).toBe(0);
    expect(await notice(v).textContent()).toBe(`Laid out without ELK (this host does not pass resource reads from views to the server): ${LINEAR}.`);
    expect(await v.view.locator('[data-testid="layout-retry"]').count()).toBe(0);
    expect(await v.view.locator('[role="alert"]').count()).toBe(0);
    expect(await v.reads()).toEqual([]);
    expect(await v.calls()).toEqual([]);
  } finally {
    await v.close();
  }
  // At 400 px the notice was one line cut with an ellipsis ("…does not pass resource rea…"): now it wraps.
  const narrow = await open({ readResource: null, width: 400 });
  try {
    await notice(narrow).waitFor();
    const lines = await notice(narrow).evaluate((e) => {
      const g = globalThis as any;
      return e.getBoundingClientRect().height / (parseFloat(g.getComputedStyle(e).lineHeight) || 16);
    });
    expect(lines).toBeGreaterThan(1.5);
    expect(await cutLines(narrow.view)).toEqual([]);
    await narrow.page.screenshot({ path: screenshotPath('mcp-apps-task-dag-no-resource-reads-400') });
    await narrow.setContext({ theme: 'dark' });
    await until(() => narrow.view.evaluate(() => (globalThis as any).document.documentElement.dataset.theme), (t) => expect(t).toBe('dark'));
    expect(await lowContrast(narrow.view)).toEqual([]);
    await narrow.page.screenshot({ path: screenshotPath('mcp-apps-task-dag-no-resource-reads-400-dark') });
  } finally {
    await narrow.close();
  }
});
