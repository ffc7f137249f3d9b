/**
 * The task DAG view's sandbox, end to end (the real built server read by the SDK's v2 client as a host that declares
 * the extension, the view framed in headless Chromium by the extension SDK's AppBridge: tests/e2e/helpers/apps-host):
 * its resource is one self-contained HTML document whose CSP allows no network, ELK's worker script is a view asset
 * read through the host (listed nowhere, unknown to other clients), and the CSP blocks a fetch to any origin, from
 * the page and from a worker. (What the view draws and does: mcp-apps-task-dag.test.ts.)
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { connectHost, until } from './helpers/apps-host';
import { call, EDGES, ELK_WORKER_URI, useTaskDagHost } from './helpers/task-dag-host';

jest.setTimeout(Number(process.env.APPS_TEST_TIMEOUT ?? 180_000));

type Json = Record<string, any>;

const h = useTaskDagHost('wg-apps-dag-sandbox');

test('the resource is one HTML document of the extension\'s MIME type, its CSP allowing no network', async () => {
  const r = await h.actions.client.readResource({ uri: 'ui://workgraph/task-dag' });
  const c = r.contents[0] as Json;
  expect(c.mimeType).toBe('text/html;profile=mcp-app');
  expect(c._meta.ui.csp).toEqual({ connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] });
  expect(h.html).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[^']+';/);
  expect(h.html).toContain("connect-src 'none'");
  // Workers only from the blob: URLs its own script makes (ELK's, from the script it reads through the host).
  expect(h.html).toContain("worker-src blob:;");
  // ELK's worker script is no longer in the document: a 5,000-task DAG (laid out linearly) does not pay for it.
  expect(h.html).not.toContain('application/gzip');
  expect(h.html.length).toBeLessThan(800_000);
  // Self-contained: nothing loaded from anywhere.
  expect(h.html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/);
  expect(h.html).toContain('<meta name="workgraph-view" content="{&quot;actions&quot;:true,&quot;live&quot;:true}">');
  expect(h.readOnlyHtml).toContain('<meta name="workgraph-view" content="{&quot;actions&quot;:false,&quot;live&quot;:true}">');
});

test('ELK\'s worker script is a view asset: read as gzipped bytes by a host that shows views, listed nowhere, unknown to other clients', async () => {
  const r = await h.actions.client.readResource({ uri: ELK_WORKER_URI });
  const c = r.contents[0] as Json;
  expect(c.uri).toBe(ELK_WORKER_URI);
  expect(c.mimeType).toBe('application/gzip');
  const script = gunzipSync(Buffer.from(c.blob, 'base64')).toString('utf8');
  expect(script).toBe(require('node:fs').readFileSync(require.resolve('elkjs/lib/elk-worker.min.js'), 'utf8'));
  // Not in the model's resource list (the extension has no visibility for resources, as it has for tools).
  const listed = (await h.actions.client.listResources()).resources.map((x) => x.uri);
  expect(listed).toContain('ui://workgraph/task-dag');
  expect(listed).not.toContain(ELK_WORKER_URI);
  // An asset nobody serves is invalid params naming what is served; a client without the extension cannot read it.
  await expect(h.actions.client.readResource({ uri: 'ui://workgraph/assets/nothing.js' })).rejects.toThrow(`unknown view asset "ui://workgraph/assets/nothing.js"; this server serves ${ELK_WORKER_URI}`);
  const plain = await connectHost({ dataDir: h.data.dir, args: ['--allow-root', h.root.dir], apps: false });
  try {
    await expect(plain.client.readResource({ uri: ELK_WORKER_URI })).rejects.toThrow(/unknown|not found|invalid/i);
  } finally {
    await plain.close();
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
  const result = await call(h.actions.client, 'get_project_graph', { project: 'Parser' });
  const v = await h.open({ result });
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
