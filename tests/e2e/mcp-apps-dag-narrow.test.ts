/**
 * The task DAG view of a DAG that fills a 400 px inline frame, end to end (the real built server read by the SDK's v2
 * client as the host, the extension SDK's AppBridge framing the view in headless Chromium: tests/e2e/helpers/apps-host):
 * 80 tasks in 8 layers, each depending on one or two of the layer before, laid out by ELK — more than the frame
 * shows, so React Flow's zoom controls (one small row at the top right in a narrow frame) and tasks would collide if
 * the first screen were not placed below them. The controls cover no task or edge of the first screen, each is
 * clickable (the topmost element at its centre) and does what it says; a failed validation's banner is readable
 * whole.
 */
import type { Client } from '@modelcontextprotocol/client';
import { tempDir } from './helpers/server-process';
import { connectHost, coveredByControls, cutLines, type HostedView, hostView, lowContrast, readsThrough, readViewHtml, until } from './helpers/apps-host';
import { launchBrowser, screenshotPath, type Browser } from '../helpers/browser';

jest.setTimeout(Number(process.env.APPS_TEST_TIMEOUT ?? 180_000));

type Json = Record<string, any>;
let data: { dir: string; cleanup: () => void };
let root: { dir: string; cleanup: () => void };
let host: { client: Client; close: () => Promise<void> };
let browser: Browser;
let html: string;

const LAYERS = 8;
const WIDTH = 10;
/** Task `l<layer>-<i>` depends on one or two tasks of the layer before (i and, for every other i, i + 3). */
const TASKS = Array.from({ length: LAYERS * WIDTH }, (_, k) => {
  const [l, i] = [Math.floor(k / WIDTH), k % WIDTH];
  const deps = l === 0 ? [] : [`l${l - 1}-${i}`, ...(i % 2 ? [`l${l - 1}-${(i + 3) % WIDTH}`] : [])];
  return {
    id: `l${l}-${i}`,
    title: `Layer ${l} task ${i}`,
    depends_on: deps,
    ...(k === 0 ? { validation_command: 'echo "the schema check failed: field \\"owner\\" is required in every one of the 12 service manifests" >&2; exit 1' } : {}),
  };
});
const EDGES = TASKS.reduce((n, t) => n + t.depends_on.length, 0);

async function call(name: string, args: Json): Promise<Json> {
  const r = await host.client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return r as Json;
}

beforeAll(async () => {
  data = tempDir('wg-apps-dag-narrow-');
  root = tempDir('wg-apps-dag-narrow-root-');
  host = await connectHost({ dataDir: data.dir, args: ['--allow-root', root.dir] });
  await call('init_project_graph', { projectName: 'Platform', projectRoot: root.dir, nodes: TASKS });
  html = await readViewHtml(host.client, 'task-dag');
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  data?.cleanup();
  root?.cleanup();
});

const open = (result: Json, input?: Json) =>
  hostView(browser, { html, result, input, width: 400, height: 640, callTool: async (n, a) => (await host.client.callTool({ name: n, arguments: a })) as Json, readResource: readsThrough(host.client) });

/** React Flow's viewport transform (pan and zoom). */
const transform = (v: HostedView) => v.view.locator('[data-testid="dag"] .react-flow__viewport').evaluate((e) => (e as any).style.transform as string);

test(`${TASKS.length} tasks at 400 px: the zoom controls cover no task or edge of the first screen, and every control is clickable`, async () => {
  const v = await open(await call('get_project_graph', { project: 'Platform' }));
  try {
    await until(() => v.view.locator('[data-testid="view-edges"]').textContent(), (t) => expect(t).toBe(`${EDGES} dependencies`));
    // Laid out by ELK (its edges routed), the first screen drawn.
    await until(() => v.view.locator('[data-testid="dag"] .react-flow__edge-routed').count(), (n) => expect(n).toBeGreaterThan(5), 30_000);
    const screen = await v.view.evaluate(() => {
      const doc = (globalThis as any).document;
      const canvas = doc.querySelector('[data-testid="dag"]').getBoundingClientRect();
      const c = doc.querySelector('[data-testid="dag"] .react-flow__controls').getBoundingClientRect();
      const boxes = [...doc.querySelectorAll('[data-testid="dag"] .react-flow__node')].map((n: any) => n.getBoundingClientRect());
      const onScreen = boxes.filter((r: any) => r.right > canvas.left && r.left < canvas.right && r.bottom > canvas.top && r.top < canvas.bottom);
      return {
        onScreen: onScreen.length,
        // Tasks in the controls' columns: moved up by the controls' height, they would be under them.
        inControlsColumns: onScreen.filter((r: any) => r.left < c.right && r.right > c.left).length,
        beyondRight: boxes.some((r: any) => r.right > canvas.right),
        beyondBottom: boxes.some((r: any) => r.bottom > canvas.bottom),
      };
    });
    // A real test: the DAG is larger than the frame (tasks cut at its edge), and tasks stand in the controls' columns.
    expect(screen.beyondRight || screen.beyondBottom).toBe(true);
    expect(screen.onScreen).toBeGreaterThanOrEqual(4);
    expect(screen.inControlsColumns).toBeGreaterThanOrEqual(1);
    expect(await coveredByControls(v.view)).toEqual([]);
    await v.page.screenshot({ path: screenshotPath('mcp-apps-task-dag-80-tasks-400') });

    // Each control is the topmost element at its centre (nothing lies over it) and does what it says.
    const buttons = v.view.locator('[data-testid="dag"] .react-flow__controls-button');
    expect(await buttons.count()).toBe(3);
    for (let i = 0; i < 3; i++) {
      const topmost = await buttons.nth(i).evaluate((b) => {
        const doc = (globalThis as any).document;
        const r = b.getBoundingClientRect();
        const hit = doc.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        return hit === b || b.contains(hit);
      });
      expect(topmost).toBe(true);
    }
    const zoomOf = (t: string) => Number(/scale\(([\d.]+)\)/.exec(t)?.[1]);
    const before = zoomOf(await transform(v));
    await buttons.nth(0).click();
    await until(async () => zoomOf(await transform(v)), (z) => expect(z).toBeGreaterThan(before));
    const zoomedIn = zoomOf(await transform(v));
    await buttons.nth(1).click();
    await until(async () => zoomOf(await transform(v)), (z) => expect(z).toBeLessThan(zoomedIn));
    // Fit view: the whole DAG in the canvas.
    await buttons.nth(2).click();
    await until(
      () =>
        v.view.evaluate(() => {
          const doc = (globalThis as any).document;
          const canvas = doc.querySelector('[data-testid="dag"]').getBoundingClientRect();
          return [...doc.querySelectorAll('[data-testid="dag"] .react-flow__node')].every((n: any) => {
            const r = n.getBoundingClientRect();
            return r.left >= canvas.left - 1 && r.right <= canvas.right + 1 && r.top >= canvas.top - 1 && r.bottom <= canvas.bottom + 1;
          });
        }),
      (all) => expect(all).toBe(true),
    );
  } finally {
    await v.close();
  }
});

test('a failed validation\'s banner and every line of the view are readable whole at 400 px, in the light and the dark theme', async () => {
  await call('start_task', { project: 'Platform', nodeId: 'l0-0' });
  const run = await call('validate_task_loop', { project: 'Platform', nodeId: 'l0-0' });
  expect(run.structuredContent.validation_passed).toBe(false);
  const v = await open(run, { project: 'Platform', nodeId: 'l0-0' });
  try {
    await until(() => v.view.locator('[data-testid="view-run"]').textContent(), (t) => expect(t).toContain('failed'));
    await v.view.locator('[data-testid="task-details"]').waitFor();
    expect(await v.view.locator('[data-testid="view-run"] pre').first().textContent()).toContain('"owner" is required');
    expect(await cutLines(v.view)).toEqual([]);
    await v.page.screenshot({ path: screenshotPath('mcp-apps-task-dag-run-400') });
    await v.setContext({ theme: 'dark' });
    await until(() => v.view.evaluate(() => (globalThis as any).document.documentElement.dataset.theme), (t) => expect(t).toBe('dark'));
    expect(await lowContrast(v.view)).toEqual([]);
    expect(await cutLines(v.view)).toEqual([]);
    await v.page.screenshot({ path: screenshotPath('mcp-apps-task-dag-run-400-dark') });
  } finally {
    await v.close();
  }
});
