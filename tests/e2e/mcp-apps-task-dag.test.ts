/**
 * The task DAG as an MCP Apps view, end to end: the real built server read by the SDK's v2 client as a host that
 * declares the extension; the view's HTML (resources/read) framed in headless Chromium by the extension SDK's own
 * host side (AppBridge, tests/e2e/helpers/apps-host); the tool results it is handed are real ones. The view draws the
 * DAG's nodes and edges from get_project_graph's result (laid out by ELK), a later validate_task_loop result updates
 * the node it names, its actions become tool calls with the right arguments (and change the server's state), a
 * read-only server's view offers none, the host's theme and display mode apply. (Its document, ELK's worker asset and
 * its CSP: mcp-apps-task-dag-sandbox.test.ts; without ELK: mcp-apps-elk-fallback.test.ts; a DAG that fills a 400 px
 * frame: mcp-apps-dag-narrow.test.ts.)
 */
import { coveredByControls, until, type HostedView } from './helpers/apps-host';
import { call, EDGES, ELK_WORKER_URI, TASKS, useTaskDagHost } from './helpers/task-dag-host';
import { screenshotPath } from '../helpers/browser';

jest.setTimeout(Number(process.env.APPS_TEST_TIMEOUT ?? 180_000));

const h = useTaskDagHost('wg-apps-dag');

const nodeCount = (v: HostedView) => v.view.locator('.react-flow__node').count();

test('draws the DAG of get_project_graph\'s result (nodes, edges, statuses); a later validate_task_loop result updates its node', async () => {
  const result = await call(h.actions.client, 'get_project_graph', { project: 'Parser' });
  const v = await h.open({ result, input: { project: 'Parser' } });
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
    await call(h.actions.client, 'start_task', { project: 'Parser', nodeId: 'parser' });
    const run = await call(h.actions.client, 'validate_task_loop', { project: 'Parser', nodeId: 'parser' });
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

test('the DAG is laid out by ELK (its worker script read once through the host): an edge that skips a layer goes around the task between', async () => {
  // parser -> release and docs -> release skip cli's layer; laid out layer by layer, parser -> release ran straight
  // through cli's box.
  const result = await call(h.actions.client, 'get_project_graph', { project: 'Parser' });
  const v = await h.open({ result });
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
    await v.sendResult(await call(h.actions.client, 'get_project_graph', { project: 'Parser' }));
    expect(await v.reads()).toEqual([ELK_WORKER_URI]);
  } finally {
    await v.close();
  }
});

test('actions become tool calls through the host with the right arguments: release a claim, reset a task', async () => {
  const result = await call(h.actions.client, 'get_project_graph', { project: 'Parser' });
  const v = await h.open({ result });
  try {
    await v.view.locator('.react-flow__node[data-id="docs"]').click();
    await v.view.locator('[data-testid="release-task"]').click();
    await until(async () => (await v.calls()).map((c) => c.name), (v) => expect(v).toContain('release_task'));
    const release = (await v.calls()).find((c) => c.name === 'release_task')!;
    // The project as the DAG names it (its id), the claim's agent beside the caller's own identity.
    expect(release.arguments).toMatchObject({ project: 'parser', nodeId: 'docs', agent: 'writer' });
    // The server's state changed, and the view shows it.
    await until(async () => (await call(h.actions.client, 'get_task_details', { project: 'Parser', nodeId: 'docs' })).structuredContent.node.status, (v) => expect(v).toBe('READY'));
    await until(() => v.view.locator('.react-flow__node[data-id="docs"]').textContent(), (v) => expect(v).toContain('READY'));

    await v.view.locator('.react-flow__node[data-id="parser"]').click();
    await v.view.locator('[data-testid="reset-task"]').click();
    await until(async () => (await v.calls()).filter((c) => c.name === 'reset_task_node').length, (v) => expect(v).toBe(1));
    expect((await v.calls()).find((c) => c.name === 'reset_task_node')!.arguments).toMatchObject({ project: 'parser', nodeId: 'parser' });
    await until(async () => (await call(h.actions.client, 'get_task_details', { project: 'Parser', nodeId: 'parser' })).structuredContent.node.current_attempt, (v) => expect(v).toBe(0));
  } finally {
    await v.close();
  }
});

test('a read-only server\'s view offers no action', async () => {
  await call(h.actions.client, 'start_task', { project: 'Parser', nodeId: 'docs', agent: 'writer' });
  const result = await call(h.readOnly.client, 'get_project_graph', { project: 'Parser' });
  const v = await h.open({ html: h.readOnlyHtml, result, client: h.readOnly.client });
  try {
    await v.view.locator('.react-flow__node[data-id="docs"]').click();
    await v.view.locator('[data-testid="task-details"]').waitFor();
    await until(() => v.view.locator('[data-testid="transitions"]').count(), (v) => expect(v).toBe(1));
    expect(await v.view.locator('[data-testid="reset-task"]').count()).toBe(0);
    expect(await v.view.locator('[data-testid="release-task"]').count()).toBe(0);
    // It only read: the task's details.
    expect((await v.calls()).map((c) => c.name)).toEqual(['get_task_details']);
    expect(h.readOnlyHtml).not.toBe(h.html);
  } finally {
    await v.close();
  }
});

test('a get_task_details result opens its task in the DAG, readable in a 400 px inline frame; the host\'s theme and display mode apply', async () => {
  const result = await call(h.actions.client, 'get_task_details', { project: 'Parser', nodeId: 'parser' });
  const v = await h.open({ result, input: { project: 'Parser', nodeId: 'parser' }, width: 400, height: 640 });
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

