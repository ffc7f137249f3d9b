/**
 * The task DAG as an MCP Apps view, end to end: the real built server read by the SDK's v2 client as a host that
 * declares the extension; the view's HTML (resources/read) framed in headless Chromium by the extension SDK's own
 * host side (AppBridge, tests/e2e/helpers/apps-host); the tool results it is handed are real ones. The view draws the
 * DAG's nodes and edges from get_project_graph's result, a later validate_task_loop result updates the node it names,
 * its actions become tool calls with the right arguments (and change the server's state), a read-only server's view
 * offers none, the host's theme and display mode apply, and its CSP blocks a fetch to any origin. (Without ELK:
 * mcp-apps-elk-fallback.test.ts; a DAG that fills a 400 px frame: mcp-apps-dag-narrow.test.ts.)
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import { tempDir } from './helpers/server-process';
import { connectHost, coveredByControls, hostView, readViewHtml, readsThrough, until, type HostedView } from './helpers/apps-host';
import { gunzipSync } from 'node:zlib';
import { launchBrowser, screenshotPath, type Browser } from '../helpers/browser';

jest.setTimeout(Number(process.env.APPS_TEST_TIMEOUT ?? 180_000));

type Json = Record<string, any>;
let data: { dir: string; cleanup: () => void };
let root: { dir: string; cleanup: () => void };
let actions: { client: Client; close: () => Promise<void> };
let readOnly: { client: Client; close: () => Promise<void> };
let browser: Browser;
let html: string;
let readOnlyHtml: string;

const TASKS = [
  { id: 'setup', title: 'Set up the repository', depends_on: [], validation_command: 'true' },
  { id: 'parser', title: 'Build the parser', depends_on: ['setup'], validation_command: 'echo parse error at line 3 >&2; exit 3', max_attempts: 3 },
  { id: 'docs', title: 'Write the docs', depends_on: ['setup'] },
  { id: 'cli', title: 'Command line', depends_on: ['parser'] },
  { id: 'release', title: 'Release 1.0', depends_on: ['parser', 'docs', 'cli'] },
];
const EDGES = TASKS.reduce((n, t) => n + t.depends_on.length, 0);

async function call(client: Client, name: string, args: Json): Promise<Json> {
  const r = await client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return r as Json;
}

beforeAll(async () => {
  data = tempDir('wg-apps-dag-');
  root = tempDir('wg-apps-dag-root-');
  const args = ['--allow-root', root.dir];
  actions = await connectHost({ dataDir: data.dir, args: [...args, '--allow-actions'] });
  readOnly = await connectHost({ dataDir: data.dir, args });
  await call(actions.client, 'init_project_graph', { projectName: 'Parser', projectRoot: root.dir, nodes: TASKS });
  await call(actions.client, 'start_task', { project: 'Parser', nodeId: 'setup' });
  await call(actions.client, 'validate_task_loop', { project: 'Parser', nodeId: 'setup' });
  await call(actions.client, 'start_task', { project: 'Parser', nodeId: 'docs', agent: 'writer' });
  html = await readViewHtml(actions.client, 'task-dag');
  readOnlyHtml = await readViewHtml(readOnly.client, 'task-dag');
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await actions?.close();
  await readOnly?.close();
  data?.cleanup();
  root?.cleanup();
});

/** Frames the view in a host that passes its tool calls and (unless `resources` is false) its resource reads on. */
const open = async (o: { html?: string; result: Json; input?: Json; width?: number; height?: number; client?: Client; resources?: boolean }) =>
  hostView(browser, {
    html: o.html ?? html,
    result: o.result,
    input: o.input,
    width: o.width ?? 1200,
    height: o.height ?? 640,
    callTool: async (name, a) => (await (o.client ?? actions.client).callTool({ name, arguments: a })) as Json,
    ...(o.resources === false ? {} : { readResource: readsThrough(o.client ?? actions.client) }),
  });

const ELK_WORKER_URI = 'ui://workgraph/assets/elk-worker.js.gz';

const nodeCount = (v: HostedView) => v.view.locator('.react-flow__node').count();

test('the resource is one HTML document of the extension\'s MIME type, its CSP allowing no network', async () => {
  const r = await actions.client.readResource({ uri: 'ui://workgraph/task-dag' });
  const c = r.contents[0] as Json;
  expect(c.mimeType).toBe('text/html;profile=mcp-app');
  expect(c._meta.ui.csp).toEqual({ connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] });
  expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[^']+';/);
  expect(html).toContain("connect-src 'none'");
  // Workers only from the blob: URLs its own script makes (ELK's, from the script it reads through the host).
  expect(html).toContain("worker-src blob:;");
  // ELK's worker script is no longer in the document: a 5,000-task DAG (laid out linearly) does not pay for it.
  expect(html).not.toContain('application/gzip');
  expect(html.length).toBeLessThan(800_000);
  // Self-contained: nothing loaded from anywhere.
  expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
  expect(html).toContain('<meta name="workgraph-view" content="{&quot;actions&quot;:true,&quot;live&quot;:true}">');
  expect(readOnlyHtml).toContain('<meta name="workgraph-view" content="{&quot;actions&quot;:false,&quot;live&quot;:true}">');
});

test('draws the DAG of get_project_graph\'s result (nodes, edges, statuses); a later validate_task_loop result updates its node', async () => {
  const result = await call(actions.client, 'get_project_graph', { project: 'Parser' });
  const v = await open({ result, input: { project: 'Parser' } });
  try {
    await v.view.locator('.react-flow__node').first().waitFor();
    expect(await nodeCount(v)).toBe(TASKS.length);
    await until(() => v.view.locator('.react-flow__edge').count(), (v) => expect(v).toBe(EDGES));
    await until(() => v.view.locator('[data-testid="view-edges"]').textContent(), (v) => expect(v).toBe(`${EDGES} dependencies`));
    expect(await v.view.locator('.react-flow__node[data-id="setup"]').textContent()).toContain('COMPLETED');
    // Rendered from the result it was handed: no tool call yet.
    expect(await v.calls()).toEqual([]);
    await v.page.screenshot({ path: screenshotPath('mcp-apps-task-dag-1200') });

    // The agent runs the parser's check (it fails): the host hands the view that result.
    await call(actions.client, 'start_task', { project: 'Parser', nodeId: 'parser' });
    const run = await call(actions.client, 'validate_task_loop', { project: 'Parser', nodeId: 'parser' });
    expect(run.structuredContent.validation_passed).toBe(false);
    await v.sendResult(run);
    await until(() => v.view.locator('.react-flow__node[data-id="parser"]').textContent(), (v) => expect(v).toContain('RETRYING'));
    await until(() => v.view.locator('[data-testid="view-run"]').textContent(), (v) => expect(v).toContain('failed'));
    expect(await v.view.locator('[data-testid="task-details"]').textContent()).toContain('parse error at line 3');
  } finally {
    await v.close();
  }
});

/**
 * Where each drawn edge passes (points along its SVG path, on screen) and each task's box: an edge may touch only the
 * two tasks it joins.
 */
async function edgesThroughNodes(v: HostedView): Promise<{ edges: number; routed: number; crossings: string[] }> {
  return v.view.evaluate(() => {
    const doc = (globalThis as any).document;
    const boxes = [...doc.querySelectorAll('.react-flow__node')].map((n: any) => ({ id: n.dataset.id as string, r: n.getBoundingClientRect() }));
    const crossings: string[] = [];
    const edges = [...doc.querySelectorAll('[data-testid^="rf__edge-"]')];
    for (const e of edges as any[]) {
      const [source, target] = e.dataset.testid.slice('rf__edge-'.length).split('->');
      const path = e.querySelector('path.react-flow__edge-path');
      const m = path.getScreenCTM();
      const len = path.getTotalLength();
      for (let l = 0; l <= len; l += 4) {
        const p = path.getPointAtLength(l);
        const x = m.a * p.x + m.c * p.y + m.e;
        const y = m.b * p.x + m.d * p.y + m.f;
        for (const b of boxes) {
          if (b.id === source || b.id === target) continue;
          if (x > b.r.left + 1 && x < b.r.right - 1 && y > b.r.top + 1 && y < b.r.bottom - 1) crossings.push(`${source}->${target} through ${b.id}`);
        }
      }
    }
    return { edges: edges.length, routed: doc.querySelectorAll('.react-flow__edge-routed').length, crossings: [...new Set(crossings)] };
  });
}

test('ELK\'s worker script is a view asset: read as gzipped bytes by a host that shows views, listed nowhere, unknown to other clients', async () => {
  const r = await actions.client.readResource({ uri: ELK_WORKER_URI });
  const c = r.contents[0] as Json;
  expect(c.uri).toBe(ELK_WORKER_URI);
  expect(c.mimeType).toBe('application/gzip');
  const script = gunzipSync(Buffer.from(c.blob, 'base64')).toString('utf8');
  expect(script).toBe(require('node:fs').readFileSync(require.resolve('elkjs/lib/elk-worker.min.js'), 'utf8'));
  // Not in the model's resource list (the extension has no visibility for resources, as it has for tools).
  const listed = (await actions.client.listResources()).resources.map((x) => x.uri);
  expect(listed).toContain('ui://workgraph/task-dag');
  expect(listed).not.toContain(ELK_WORKER_URI);
  // An asset nobody serves is invalid params naming what is served; a client without the extension cannot read it.
  await expect(actions.client.readResource({ uri: 'ui://workgraph/assets/nothing.js' })).rejects.toThrow(`unknown view asset "ui://workgraph/assets/nothing.js"; this server serves ${ELK_WORKER_URI}`);
  const plain = await connectHost({ dataDir: data.dir, args: ['--allow-root', root.dir], apps: false });
  try {
    await expect(plain.client.readResource({ uri: ELK_WORKER_URI })).rejects.toThrow(/unknown|not found|invalid/i);
  } finally {
    await plain.close();
  }
});

test('the DAG is laid out by ELK (its worker script read once through the host): an edge that skips a layer goes around the task between', async () => {
  // parser -> release and docs -> release skip cli's layer; laid out layer by layer, parser -> release ran straight
  // through cli's box.
  const result = await call(actions.client, 'get_project_graph', { project: 'Parser' });
  const v = await open({ result });
  try {
    await until(() => v.view.locator('.react-flow__edge').count(), (n) => expect(n).toBe(EDGES));
    const drawn = await edgesThroughNodes(v);
    expect(drawn.edges).toBe(EDGES);
    expect(drawn.crossings).toEqual([]);
    // Every edge follows the route ELK computed.
    expect(drawn.routed).toBe(EDGES);
    // ELK's layers: release after cli, cli after parser (columns left to right).
    const x = async (id: string) => (await v.view.locator(`.react-flow__node[data-id="${id}"]`).boundingBox())!.x;
    expect(await x('parser')).toBeLessThan(await x('cli'));
    expect(await x('cli')).toBeLessThan(await x('release'));
    // ELK's script came through the host, once; no notice.
    expect(await v.reads()).toEqual([ELK_WORKER_URI]);
    expect(await v.view.locator('[data-testid="layout-notice"]').count()).toBe(0);
    // A later result of the same shape lays nothing out again and reads nothing again.
    await v.sendResult(await call(actions.client, 'get_project_graph', { project: 'Parser' }));
    expect(await v.reads()).toEqual([ELK_WORKER_URI]);
  } finally {
    await v.close();
  }
});

test('actions become tool calls through the host with the right arguments: release a claim, reset a task', async () => {
  const result = await call(actions.client, 'get_project_graph', { project: 'Parser' });
  const v = await open({ result });
  try {
    await v.view.locator('.react-flow__node[data-id="docs"]').click();
    await v.view.locator('[data-testid="release-task"]').click();
    await until(async () => (await v.calls()).map((c) => c.name), (v) => expect(v).toContain('release_task'));
    const release = (await v.calls()).find((c) => c.name === 'release_task')!;
    // The project as the DAG names it (its id), the claim's agent beside the caller's own identity.
    expect(release.arguments).toMatchObject({ project: 'parser', nodeId: 'docs', agent: 'writer' });
    // The server's state changed, and the view shows it.
    await until(async () => (await call(actions.client, 'get_task_details', { project: 'Parser', nodeId: 'docs' })).structuredContent.node.status, (v) => expect(v).toBe('READY'));
    await until(() => v.view.locator('.react-flow__node[data-id="docs"]').textContent(), (v) => expect(v).toContain('READY'));

    await v.view.locator('.react-flow__node[data-id="parser"]').click();
    await v.view.locator('[data-testid="reset-task"]').click();
    await until(async () => (await v.calls()).filter((c) => c.name === 'reset_task_node').length, (v) => expect(v).toBe(1));
    expect((await v.calls()).find((c) => c.name === 'reset_task_node')!.arguments).toMatchObject({ project: 'parser', nodeId: 'parser' });
    await until(async () => (await call(actions.client, 'get_task_details', { project: 'Parser', nodeId: 'parser' })).structuredContent.node.current_attempt, (v) => expect(v).toBe(0));
  } finally {
    await v.close();
  }
});

test('a read-only server\'s view offers no action', async () => {
  await call(actions.client, 'start_task', { project: 'Parser', nodeId: 'docs', agent: 'writer' });
  const result = await call(readOnly.client, 'get_project_graph', { project: 'Parser' });
  const v = await open({ html: readOnlyHtml, result, client: readOnly.client });
  try {
    await v.view.locator('.react-flow__node[data-id="docs"]').click();
    await v.view.locator('[data-testid="task-details"]').waitFor();
    await until(() => v.view.locator('[data-testid="transitions"]').count(), (v) => expect(v).toBe(1));
    expect(await v.view.locator('[data-testid="reset-task"]').count()).toBe(0);
    expect(await v.view.locator('[data-testid="release-task"]').count()).toBe(0);
    // It only read: the task's details.
    expect((await v.calls()).map((c) => c.name)).toEqual(['get_task_details']);
    expect(readOnlyHtml).not.toBe(html);
  } finally {
    await v.close();
  }
});

test('a get_task_details result opens its task in the DAG, readable in a 400 px inline frame; the host\'s theme and display mode apply', async () => {
  const result = await call(actions.client, 'get_task_details', { project: 'Parser', nodeId: 'parser' });
  const v = await open({ result, input: { project: 'Parser', nodeId: 'parser' }, width: 400, height: 640 });
  try {
    await v.view.locator('[data-testid="task-details"]').waitFor();
    // The whole DAG is there (the narrow canvas draws only the tasks on screen).
    expect(await v.view.locator('[data-testid="view-edges"]').textContent()).toBe(`${EDGES} dependencies`);
    expect(await v.view.locator('[data-testid="task-details"] h2').textContent()).toBe('Build the parser');
    // The graph was read (get_task_details holds no DAG); the details were not read again.
    expect((await v.calls()).map((c) => c.name)).toEqual(['get_project_graph']);
    // Readable: the details' text at 12 px or more, nothing wider than the frame.
    const m = await v.view.evaluate(() => {
      const g = globalThis as any;
      const doc = g.document;
      return {
        font: parseFloat(g.getComputedStyle(doc.querySelector('[data-testid="task-details"] .kv')).fontSize),
        scroll: doc.documentElement.scrollWidth,
        width: doc.documentElement.clientWidth,
      };
    });
    expect(m.font).toBeGreaterThanOrEqual(12);
    expect(m.scroll).toBeLessThanOrEqual(m.width);
    // The zoom controls (one small row at the top) cover no task and no edge of the first screen.
    await until(() => v.view.locator('[data-testid="dag"] .react-flow__edge').count(), (n) => expect(n).toBeGreaterThan(0));
    expect(await coveredByControls(v.view)).toEqual([]);
    await v.page.screenshot({ path: screenshotPath('mcp-apps-task-dag-400') });

    await v.setContext({ theme: 'dark' });
    await until(() => v.view.evaluate(() => (globalThis as any).document.documentElement.dataset.theme), (v) => expect(v).toBe('dark'));
    await v.view.locator('[data-testid="view-display-mode"]').click();
    await until(() => v.page.evaluate(() => (globalThis as any).wgHost.displayRequests), (v) => expect(v).toEqual(['fullscreen']));
    await until(() => v.view.evaluate(() => (globalThis as any).document.documentElement.dataset.displayMode), (v) => expect(v).toBe('fullscreen'));
  } finally {
    await v.close();
  }
});

test('its CSP blocks a fetch to any origin (the request never arrives)', async () => {
  let requests = 0;
  const server = http.createServer((_req, res) => {
    requests++;
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const result = await call(actions.client, 'get_project_graph', { project: 'Parser' });
  const v = await open({ result });
  try {
    await v.view.locator('.react-flow__node').first().waitFor();
    const outcome = await v.view.evaluate(async (u) => {
      const violations: string[] = [];
      const g = globalThis as any;
      g.document.addEventListener('securitypolicyviolation', (e: any) => violations.push(e.violatedDirective));
      const tried = await Promise.all([u, 'https://example.com/'].map((x: string) => g.fetch(x).then(() => 'fetched', (e: Error) => `refused: ${e.message}`)));
      await new Promise((r) => setTimeout(r, 100));
      return { tried, violations };
    }, url);
    expect(outcome.tried.every((t) => t.startsWith('refused'))).toBe(true);
    // ELK's worker (from the script the view read through the host) ran the layout; a worker the view starts as it
    // starts ELK's inherits the policy: its fetch is refused too.
    await until(() => v.view.locator('.react-flow__edge-routed').count(), (n) => expect(n).toBe(EDGES));
    expect(await v.reads()).toEqual([ELK_WORKER_URI]);
    const fromWorker = await v.view.evaluate(
      (u) =>
        new Promise<string>((resolve) => {
          const g = globalThis as any;
          const code = `fetch(${JSON.stringify(u)}).then(() => postMessage('fetched'), (e) => postMessage('refused: ' + e.message))`;
          const w = new g.Worker(g.URL.createObjectURL(new g.Blob([code], { type: 'text/javascript' })));
          w.onmessage = (e: any) => resolve(e.data);
          w.onerror = (e: any) => resolve(`worker error: ${e.message}`);
        }),
      url,
    );
    expect(fromWorker).toMatch(/^refused/);
    expect(outcome.violations).toContain('connect-src');
    expect(requests).toBe(0);
  } finally {
    await v.close();
    server.close();
  }
});
