/**
 * The task DAG and the graph drawings at reading size, in headless Chromium: a 13-task DAG opens with its titles at
 * 11 px or more and whole, every edge routed around the nodes between its ends (measured on the rendered SVG paths
 * against the node boxes), the details panel re-fits the view so no layer hides behind it; plus the smaller fixes:
 * "(no output)", the favicon, a fresh run page after switching runs by URL, whole node types on the run timeline, a
 * switch condition shown as a condition, the nav on a task page.
 */
import type { Page } from 'playwright-core';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectClient, tempDir } from './helpers/server-process';
import { startDashboardProcess, waitForApi, type DashboardProcess } from './helpers/dashboard-process';
import { call, SUM_TO_N } from './helpers/dashboard-seed';
import { launchBrowser, screenshotPath, type Browser } from '../helpers/browser';

jest.setTimeout(180_000);

let data: { dir: string; cleanup: () => void };
let root: { dir: string; cleanup: () => void };
let mcp: { client: Client; close: () => Promise<void> };
let dash: DashboardProcess;
let browser: Browser;
let page: Page;
const runs: string[] = [];

/** A shop in 13 tasks and 4 layers, with edges that skip a layer (setup → deploy, catalog → admin). */
const SHOP = [
  { id: 'setup', title: 'Set up the repository and CI', depends_on: [] },
  { id: 'auth', title: 'User sign-up and login with email verification', depends_on: ['setup'] },
  { id: 'catalog', title: 'Product catalog with categories and images', depends_on: ['setup'] },
  { id: 'db', title: 'Database schema and migrations', depends_on: ['setup'], validation_command: 'exit 4', max_attempts: 3 },
  { id: 'search', title: 'Full-text product search', depends_on: ['catalog'] },
  { id: 'cart', title: 'Shopping cart that survives a reload', depends_on: ['catalog', 'auth'] },
  { id: 'profile', title: 'User profile page', depends_on: ['auth'] },
  { id: 'reviews', title: 'Product reviews and ratings', depends_on: ['catalog', 'auth'] },
  { id: 'analytics', title: 'Usage analytics events', depends_on: ['db'] },
  { id: 'admin', title: 'Admin dashboard for products and orders', depends_on: ['catalog', 'reviews'] },
  { id: 'checkout', title: 'Checkout with card payments', depends_on: ['cart', 'db'] },
  { id: 'emails', title: 'Transactional emails', depends_on: ['auth', 'cart'] },
  { id: 'deploy', title: 'Deploy to production', depends_on: ['setup', 'search', 'cart'] },
];

beforeAll(async () => {
  data = tempDir('wg-dash-dag-');
  root = tempDir('wg-dash-dag-root-');
  mcp = await connectClient({ dataDir: data.dir, args: ['--graphs', SUM_TO_N, '--allow-root', root.dir] });
  await call(mcp.client, 'init_project_graph', { projectName: 'Shop', projectRoot: root.dir, nodes: SHOP });
  await call(mcp.client, 'start_task', { project: 'Shop', nodeId: 'setup' });
  await call(mcp.client, 'validate_task_loop', { project: 'Shop', nodeId: 'setup' });
  // db's check fails with no output at all.
  await call(mcp.client, 'start_task', { project: 'Shop', nodeId: 'db' });
  await call(mcp.client, 'validate_task_loop', { project: 'Shop', nodeId: 'db' });
  for (const n of [5, 2]) {
    const r = await mcp.client.callTool({ name: 'sum_to_n', arguments: { n } });
    runs.push((r._meta as Record<string, string>)['workgraph/executionId']);
  }
  dash = await startDashboardProcess({ dataDir: data.dir, args: ['--graphs', SUM_TO_N] });
  await waitForApi(dash, `/runs/${runs[1]}`);
  browser = await launchBrowser();
  page = await browser.context.newPage();
});

afterAll(async () => {
  await browser?.close();
  await dash?.stop();
  await mcp?.close();
  data?.cleanup();
  root?.cleanup();
});

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Every task box on screen, every edge's rendered path sampled every 2 px (client coordinates), the zoom. */
async function measure(p: Page) {
  return p.evaluate(() => {
    const doc = (globalThis as any).document;
    const rect = (el: any) => {
      const r = el.getBoundingClientRect();
      return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    };
    const nodes = [...doc.querySelectorAll('.react-flow__node-task')].map((el: any) => ({ id: el.getAttribute('data-id'), box: rect(el) }));
    const edges = [...doc.querySelectorAll('.react-flow__edge')].map((g: any) => {
      const path = g.querySelector('path.react-flow__edge-path');
      const ctm = path.getScreenCTM();
      const len = path.getTotalLength();
      const points: Array<{ x: number; y: number }> = [];
      for (let d = 0; d <= len; d += 2) {
        const pt = path.getPointAtLength(d);
        points.push({ x: ctm.a * pt.x + ctm.c * pt.y + ctm.e, y: ctm.b * pt.x + ctm.d * pt.y + ctm.f });
      }
      return { id: g.getAttribute('data-id') ?? g.getAttribute('data-testid'), points };
    });
    const titles = [...doc.querySelectorAll('.task-node .task-title')].map((el: any) => {
      const node = el.closest('.task-node');
      const zoom = node.getBoundingClientRect().width / node.offsetWidth;
      return { px: parseFloat((globalThis as any).getComputedStyle(el).fontSize) * zoom, whole: el.scrollHeight <= el.clientHeight + 1, title: el.getAttribute('title'), text: el.textContent };
    });
    return { nodes, edges, titles };
  });
}

const inside = (p: { x: number; y: number }, b: Box, inset = 2) => p.x > b.left + inset && p.x < b.right - inset && p.y > b.top + inset && p.y < b.bottom - inset;
const overlaps = (a: Box, b: Box) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;

test('a 13-task DAG opens at reading size: titles at 11 px or more and whole, every edge around the nodes between its ends', async () => {
  await page.goto(`${dash.url}#/tasks/shop`);
  await page.locator('.task-node[data-task="deploy"]').waitFor({ timeout: 30_000 });
  await page.waitForTimeout(300);
  const m = await measure(page);
  expect(m.nodes).toHaveLength(13);
  for (const t of m.titles) {
    expect(t.px).toBeGreaterThanOrEqual(11);
    expect(t.whole).toBe(true);
    expect(t.title).toBe(t.text);
  }
  const byId = new Map(m.nodes.map((n) => [n.id as string, n.box as Box]));
  expect(m.edges).toHaveLength(SHOP.reduce((s, t) => s + t.depends_on.length, 0));
  const crossings: string[] = [];
  for (const e of m.edges) {
    const [source, target] = String(e.id).replace(/^rf__edge-/, '').split('->');
    expect(byId.has(source) && byId.has(target)).toBe(true);
    for (const [id, box] of byId) {
      if (id === source || id === target) continue;
      if (e.points.some((p) => inside(p, box))) crossings.push(`${source}->${target} crosses ${id}`);
    }
  }
  expect(crossings).toEqual([]);
  await page.screenshot({ path: screenshotPath('dashboard-dag-13') });
});

test('opening the details panel re-fits the view: no layer hides behind it, titles stay readable, the full title is there', async () => {
  await page.goto(`${dash.url}#/tasks/shop`);
  await page.locator('.task-node[data-task="deploy"]').waitFor({ timeout: 30_000 });
  await page.locator('.task-node[data-task="deploy"]').click();
  const details = page.locator('[data-testid="task-details"]');
  await details.waitFor();
  await expect(details.locator('h2').textContent()).resolves.toBe('Deploy to production');
  await page.waitForTimeout(500);
  const panel = (await details.boundingBox())!;
  const canvas = (await page.locator('[data-testid="dag"]').boundingBox())!;
  const m = await measure(page);
  const panelBox = { left: panel.x, top: panel.y, right: panel.x + panel.width, bottom: panel.y + panel.height };
  for (const n of m.nodes) {
    expect({ id: n.id, under: overlaps(n.box, panelBox) }).toEqual({ id: n.id, under: false });
    expect(n.box.left).toBeGreaterThanOrEqual(canvas.x - 1);
    expect(n.box.right).toBeLessThanOrEqual(canvas.x + canvas.width + 1);
  }
  for (const t of m.titles) expect(t.px).toBeGreaterThanOrEqual(11);
  await page.screenshot({ path: screenshotPath('dashboard-task-details') });
  // A failed attempt that printed nothing says so.
  await page.locator('.task-node[data-task="db"]').click();
  await expect(details.locator('h2').textContent()).resolves.toBe('Database schema and migrations');
  await expect(details.locator('.attempt [data-testid="no-output"]').first().textContent()).resolves.toBe('(no output)');
});

test("the overview's status badges sit in their table cell, in line with the row", async () => {
  await page.goto(dash.url.split('#')[0] + '#/');
  const row = page.locator('tr[data-project="shop"]');
  await row.waitFor({ timeout: 30_000 });
  const cells = await row.locator('td').evaluateAll((tds) => tds.map((td: any) => ({ display: (globalThis as any).getComputedStyle(td).display, top: Math.round(td.getBoundingClientRect().top) })));
  expect(cells.map((c) => c.display)).toEqual(['table-cell', 'table-cell', 'table-cell', 'table-cell']);
  expect(new Set(cells.map((c) => c.top)).size).toBe(1);
  const badgeTop = await row.locator('.badge').first().evaluate((el: any) => el.getBoundingClientRect().top);
  const nameTop = await row.locator('a.strong').evaluate((el: any) => el.getBoundingClientRect().top);
  expect(Math.abs(badgeTop - nameTop)).toBeLessThan(8);
});

test('the nav marks nothing as Overview on a task page; the favicon is served', async () => {
  await page.goto(`${dash.url}#/tasks/shop`);
  await page.locator('.task-node').first().waitFor({ timeout: 30_000 });
  await expect(page.locator('header nav a.active').count()).resolves.toBe(0);
  const origin = new URL(dash.url).origin;
  const ico = await page.request.get(`${origin}/favicon.ico`);
  expect(ico.status()).toBe(200);
  expect(ico.headers()['content-type']).toBe('image/x-icon');
  await expect(page.locator('link[rel="icon"]').getAttribute('href')).resolves.toBeTruthy();
});

test('switching runs by URL starts with no execution selected; node types on the timeline are whole; conditions read as conditions', async () => {
  await page.setViewportSize({ width: 900, height: 700 });
  try {
    await page.goto(`${dash.url}#/runs/${runs[0]}`);
    const timeline = page.locator('[data-testid="timeline"] .exec');
    await timeline.nth(4).waitFor({ timeout: 30_000 });
    await timeline.nth(4).click();
    await page.locator('[data-testid="execution"] h2').waitFor();
    const cut = await page.evaluate(() =>
      [...(globalThis as any).document.querySelectorAll('.exec-label .node-type')].filter((el: any) => el.scrollWidth > el.clientWidth + 1).length,
    );
    expect(cut).toBe(0);
    await page.screenshot({ path: screenshotPath('dashboard-run-900') });
    await page.goto(`${dash.url}#/runs/${runs[1]}`);
    await page.locator('[data-testid="timeline"] .exec').first().waitFor({ timeout: 30_000 });
    await expect(page.locator('[data-testid="execution"]').count()).resolves.toBe(0);
    await expect(page.locator('.error').count()).resolves.toBe(0);

    await page.goto(`${dash.url}#/graphs/sum_to_n`);
    const label = page.locator('[data-testid="graph-drawing"] .edge-label').first();
    await label.waitFor({ timeout: 30_000 });
    const labels = await page.locator('[data-testid="graph-drawing"] .edge-label').allTextContents();
    expect(labels).toContain('increment_node.counter < increment_node.target');
    expect(labels).toContain('default');
    expect(labels.join(' ')).not.toContain('{');
    // Each label sits beside the lines, never on one (its box and every edge's rendered path, 1 px inset).
    const onLine = await page.evaluate(() => {
      const doc = (globalThis as any).document;
      const boxes = [...doc.querySelectorAll('[data-testid="graph-drawing"] .edge-label')].map((el: any) => el.getBoundingClientRect());
      let hits = 0;
      for (const path of doc.querySelectorAll('[data-testid="graph-drawing"] path.react-flow__edge-path')) {
        const ctm = path.getScreenCTM();
        for (let d = 0; d <= path.getTotalLength(); d += 1) {
          const pt = path.getPointAtLength(d);
          const x = ctm.a * pt.x + ctm.c * pt.y + ctm.e;
          const y = ctm.b * pt.x + ctm.d * pt.y + ctm.f;
          if (boxes.some((b: any) => x > b.left + 1 && x < b.right - 1 && y > b.top + 1 && y < b.bottom - 1)) hits++;
        }
      }
      return hits;
    });
    expect(onLine).toBe(0);
    await page.screenshot({ path: screenshotPath('dashboard-graph-900') });
  } finally {
    await page.setViewportSize({ width: 1400, height: 900 });
  }
});
