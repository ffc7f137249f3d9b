/**
 * Drives an MCP Apps view in headless Chromium inside the test host page (apps-host/host-page.ts: the extension
 * SDK's AppBridge), its tool calls forwarded to a real SDK client of the real built server.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { Browser } from '../../helpers/browser';

let hostScript: string | undefined;

/** The host page's script, bundled once per test file. */
export function hostPageScript(): string {
  if (hostScript) return hostScript;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-apps-host-'));
  const out = path.join(dir, 'host.js');
  execFileSync(process.execPath, [path.join(__dirname, 'apps-host', 'build-host.mjs'), out], { stdio: ['ignore', 'ignore', 'inherit'], cwd: path.resolve(__dirname, '../../..') });
  hostScript = fs.readFileSync(out, 'utf8');
  fs.rmSync(dir, { recursive: true, force: true });
  return hostScript;
}

type Json = Record<string, unknown>;
export type CallTool = (name: string, args: Json) => Promise<Json>;
/** Reads a resource of the server (a host's MCP client's `resources/read`). */
export type ReadResource = (uri: string) => Promise<Json>;

export interface HostedView {
  page: Page;
  /** The view's frame (the sandboxed iframe). */
  view: Frame;
  /** Tool calls the view made through the host, in order — but its polls of resource_changes (see polls). */
  calls(): Promise<Array<{ name: string; arguments?: Json }>>;
  /** The view's polls of the app-only resource_changes tool (how it stays live), in order. */
  polls(): Promise<Array<{ name: string; arguments?: Json }>>;
  /** The URIs the view read through the host (resources/read), in order. */
  reads(): Promise<string[]>;
  sendResult(result: Json): Promise<void>;
  setContext(context: Json): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens a page with the host, frames `html` in it at `width`×`height` and hands it `result` (and `input`). With
 * `readResource` the host passes the view's resource reads to it (and declares `serverResources`); without, it offers
 * none, as a host that does not proxy them.
 */
export async function hostView(browser: Browser, o: { html: string; result: Json; input?: Json; context?: Json; width: number; height: number; callTool: CallTool; readResource?: ReadResource }): Promise<HostedView> {
  const page = await browser.context.newPage();
  await page.setViewportSize({ width: Math.max(o.width + 40, 480), height: o.height + 40 });
  await page.exposeFunction('hostCallTool', (name: string, args: Json) => o.callTool(name, args));
  if (o.readResource) await page.exposeFunction('hostReadResource', (uri: string) => o.readResource!(uri));
  await page.setContent('<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:16px;background:#eee"></body></html>');
  await page.addScriptTag({ content: hostPageScript() });
  await page.evaluate((opts) => (globalThis as any).wgHost.load(opts), { html: o.html, result: o.result, input: o.input, context: o.context, width: o.width, height: o.height, resources: o.readResource !== undefined });
  const handle = await page.waitForSelector('iframe[data-testid="view-frame"]');
  const view = (await handle.contentFrame())!;
  return {
    page,
    view,
    calls: async () => (await page.evaluate(() => (globalThis as any).wgHost.calls as Array<{ name: string; arguments?: Json }>)).filter((c) => c.name !== 'resource_changes'),
    polls: async () => (await page.evaluate(() => (globalThis as any).wgHost.calls as Array<{ name: string; arguments?: Json }>)).filter((c) => c.name === 'resource_changes'),
    reads: () => page.evaluate(() => (globalThis as any).wgHost.reads as string[]),
    sendResult: (r) => page.evaluate((x) => (globalThis as any).wgHost.sendResult(x), r),
    setContext: (c) => page.evaluate((x) => (globalThis as any).wgHost.setContext(x), c),
    close: () => page.close(),
  };
}

/** A tool result as the host hands it to a view (what the SDK client returned, untouched). */
export function asResult(r: unknown): Json {
  return r as Json;
}

/** The capabilities a host that shows MCP Apps views declares. */
export const APPS_CAPABILITIES = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } };

/** The built server over stdio, driven by the SDK v2 client as a host that declares (or not) the extension. */
export async function connectHost(opts: { dataDir: string; args?: string[]; apps?: boolean; modern?: boolean }): Promise<{ client: import('@modelcontextprotocol/client').Client; close: () => Promise<void>; stderr: () => string }> {
  const { Client } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const { CLI, assertBuilt, serverEnv } = await import('./server-process');
  assertBuilt();
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', ...(opts.args ?? [])], env: serverEnv({ dataDir: opts.dataDir }), stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const client = new Client(
    { name: 'workgraph-apps-host', version: '1.0.0' },
    { capabilities: opts.apps === false ? {} : APPS_CAPABILITIES, ...(opts.modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}) },
  );
  await client.connect(transport);
  return { client, close: () => client.close(), stderr: () => err };
}

/** The host's resource reads through `client` (what a host that proxies them does). */
export function readsThrough(client: import('@modelcontextprotocol/client').Client): ReadResource {
  return async (uri) => (await client.readResource({ uri })) as unknown as Json;
}

/** A view's HTML as the server serves it (resources/read). */
export async function readViewHtml(client: import('@modelcontextprotocol/client').Client, view: string): Promise<string> {
  const r = await client.readResource({ uri: `ui://workgraph/${view}` });
  return (r.contents[0] as { text: string }).text;
}

/** Reads `get` until `check` passes (it throws until then), for up to `ms`; then fails with check's last error. */
export async function until<T>(get: () => Promise<T> | T, check: (value: T) => void, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await get();
    try {
      check(value);
      return;
    } catch (e) {
      if (Date.now() > end) throw e;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * What React Flow's zoom controls — and any other panel over the drawing, a large DAG's minimap — cover in the view's
 * drawing (`within`: the drawing's element), as it is on screen: the nodes whose box and the edges whose drawn path
 * (sampled along it) pass under a panel's box.
 */
export async function coveredByControls(view: Frame, within = '[data-testid="dag"]'): Promise<string[]> {
  return view.evaluate((sel) => {
    const doc = (globalThis as any).document;
    const root = doc.querySelector(sel);
    if (!root?.querySelector('.react-flow__controls')) return ['no controls'];
    const panels = [...root.querySelectorAll('.react-flow__panel')].map((p: any) => p.getBoundingClientRect()).filter((c: any) => c.width > 0 && c.height > 0);
    const under = (x: number, y: number) => panels.some((c: any) => x >= c.left && x <= c.right && y >= c.top && y <= c.bottom);
    const covered: string[] = [];
    for (const n of root.querySelectorAll('.react-flow__node')) {
      const r = n.getBoundingClientRect();
      if (panels.some((c: any) => r.left < c.right && r.right > c.left && r.top < c.bottom && r.bottom > c.top)) covered.push(`node ${n.dataset.id}`);
    }
    for (const e of root.querySelectorAll('.react-flow__edge')) {
      const path = e.querySelector('path.react-flow__edge-path');
      const m = path?.getScreenCTM();
      if (!m) continue;
      for (let l = 0, len = path.getTotalLength(); l <= len; l += 3) {
        const p = path.getPointAtLength(l);
        if (under(m.a * p.x + m.c * p.y + m.e, m.b * p.x + m.d * p.y + m.f)) {
          covered.push(`edge ${e.dataset.id}`);
          break;
        }
      }
    }
    return covered;
  }, within);
}

/** The notices, banners, errors and status lines of every view: what must be readable whole in a narrow frame. */
export const VIEW_LINES = '[role="status"], [role="alert"], .notice, .error, .layout-notice, .view-run summary, [data-testid="run-path"], [data-testid="travel-at"], [data-testid="hit-count"], [data-testid="run-now"], p.small';

/**
 * The lines (`selector`, VIEW_LINES by default) in the view that are not readable whole as drawn: their text is cut
 * (wider or taller than their box: an ellipsis, a hidden overflow), they reach past the frame's width, or an ancestor
 * that hides its overflow clips them. Each as `what: its text`; none when every line is visible whole.
 */
export async function cutLines(view: Frame, selector = VIEW_LINES): Promise<string[]> {
  return view.evaluate((sel) => {
    const g = globalThis as any;
    const doc = g.document;
    const width = doc.documentElement.clientWidth;
    const cut: string[] = [];
    const lines = [...doc.querySelectorAll(sel)].filter((e: any) => e.getClientRects().length > 0 && e.textContent.trim());
    for (const e of lines as any[]) {
      const text = e.textContent.trim().slice(0, 80);
      const r = e.getBoundingClientRect();
      if (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1) cut.push(`text wider or taller than its box (${e.scrollWidth}x${e.scrollHeight} in ${e.clientWidth}x${e.clientHeight}): ${text}`);
      if (r.left < -0.5 || r.right > width + 0.5) cut.push(`past the frame's ${width} px (${Math.round(r.left)}..${Math.round(r.right)}): ${text}`);
      for (let a = e.parentElement; a && a !== doc.body; a = a.parentElement) {
        const style = g.getComputedStyle(a);
        if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
        const b = a.getBoundingClientRect();
        if (r.left < b.left - 0.5 || r.right > b.right + 0.5 || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5) {
          cut.push(`clipped by ${a.tagName.toLowerCase()}.${[...a.classList].join('.')}: ${text}`);
          break;
        }
      }
    }
    return cut;
  }, selector);
}

/** What a view shows as text (its lines, the steps, hits, timeline entries and headings), for the contrast check. */
export const VIEW_TEXT = `${VIEW_LINES}, h1, h2, h3, .step b, .step code, .step-state, .progress-text, .knode-head .strong, .knodes .snippet, .knodes .muted, .timeline > li, .exec-label, .exec-ms, pre.json, .graph-node b`;

/**
 * The lines (`selector`, VIEW_TEXT by default) whose text is hard to read on its background: a WCAG contrast ratio
 * below `min` (4.5, the AA bar for body text) between the text's colour and the first opaque background under it.
 * Each as `ratio: its text`.
 */
export async function lowContrast(view: Frame, selector = VIEW_TEXT, min = 4.5): Promise<string[]> {
  return view.evaluate(
    ({ sel, min }) => {
      const g = globalThis as any;
      const rgba = (c: string) => (c.match(/[\d.]+/g) ?? ['0', '0', '0', '0']).map(Number);
      const luminance = ([r, gr, b]: number[]) => {
        const lin = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
        return 0.2126 * lin(r) + 0.7152 * lin(gr) + 0.0722 * lin(b);
      };
      const low: string[] = [];
      for (const e of g.document.querySelectorAll(sel) as any[]) {
        if (!e.getClientRects().length || !e.textContent.trim()) continue;
        const fg = rgba(g.getComputedStyle(e).color);
        let bg = [255, 255, 255];
        for (let a = e; a; a = a.parentElement) {
          const c = rgba(g.getComputedStyle(a).backgroundColor);
          if (c.length < 4 || c[3] > 0.5) {
            bg = c;
            break;
          }
        }
        const [l1, l2] = [luminance(fg), luminance(bg)].sort((x, y) => y - x);
        const ratio = (l1 + 0.05) / (l2 + 0.05);
        if (ratio < min) low.push(`${ratio.toFixed(2)}: ${e.textContent.trim().slice(0, 60)}`);
      }
      return low;
    },
    { sel: selector, min },
  );
}
