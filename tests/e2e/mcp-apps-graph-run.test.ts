/**
 * A graph tool run as an MCP Apps view with time travel, end to end (tests/e2e/helpers/apps-host: the real built
 * server with examples/graphs/sum_to_n.yaml, the SDK's v2 client as the host, the extension SDK's AppBridge framing
 * the view in headless Chromium): graph_inspect's result drawn as handed (its node executions on the timeline, no tool
 * call); travelling to an execution is a graph_inspect call with its executionIndex, and shows what it saw; a result
 * that names an execution shows it without a call.
 */
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { tempDir } from './helpers/server-process';
import { connectHost, hostView, readViewHtml, until } from './helpers/apps-host';
import { launchBrowser, screenshotPath, type Browser } from '../helpers/browser';

jest.setTimeout(Number(process.env.APPS_TEST_TIMEOUT ?? 180_000));

type Json = Record<string, any>;
const SUM_TO_N = path.resolve(__dirname, '../../examples/graphs/sum_to_n.yaml');
let data: { dir: string; cleanup: () => void };
let host: { client: Client; close: () => Promise<void> };
let browser: Browser;

async function call(name: string, args: Json): Promise<Json> {
  const r = await host.client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return r as Json;
}

beforeAll(async () => {
  data = tempDir('wg-apps-graph-');
  host = await connectHost({ dataDir: data.dir, args: ['--graphs', SUM_TO_N] });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  data?.cleanup();
});

test('the run as handed, then time travel through its executions by graph_inspect calls', async () => {
  const html = await readViewHtml(host.client, 'graph-run');
  const run = await call('sum_to_n', { n: 3 });
  const executionId = run._meta['workgraph/executionId'];
  const inspect = await call('graph_inspect', { executionId });
  const history = inspect.structuredContent.history as Json[];
  expect(history.length).toBeGreaterThan(3);
  const v = await hostView(browser, { html, result: inspect, input: { executionId }, width: 1200, height: 700, callTool: async (n, a) => (await host.client.callTool({ name: n, arguments: a })) as Json });
  try {
    await until(() => v.view.locator('[data-testid="timeline"] button.exec').count(), (n) => expect(n).toBe(history.length));
    expect(await v.view.locator('[data-testid="run-status"]').textContent()).toBe(inspect.structuredContent.status);
    expect(await v.calls()).toEqual([]);

    await v.view.locator('[data-testid="travel-next"]').click();
    await until(() => v.view.locator('[data-testid="execution"] h2').textContent(), (t) => expect(t).toContain(`#0 ${history[0].nodeId}`));
    await v.view.locator('[data-testid="travel-next"]').click();
    await until(() => v.view.locator('[data-testid="execution"] h2').textContent(), (t) => expect(t).toContain(`#1 ${history[1].nodeId}`));
    expect(await v.calls()).toEqual([
      { name: 'graph_inspect', arguments: { executionId, executionIndex: 0 } },
      { name: 'graph_inspect', arguments: { executionId, executionIndex: 1 } },
    ]);
    const seen = await call('graph_inspect', { executionId, executionIndex: 1 });
    expect(JSON.parse((await v.view.locator('[data-testid="execution"] pre.json').last().textContent())!)).toEqual(seen.structuredContent.context);
    await v.page.screenshot({ path: screenshotPath('mcp-apps-graph-run-1200') });

    // A result that names an execution: shown as handed.
    const last = history.length - 1;
    await v.sendResult(await call('graph_inspect', { executionId, executionIndex: last }));
    await until(() => v.view.locator('[data-testid="travel-at"]').textContent(), (t) => expect(t).toBe(`#${last} of ${last}`));
    await until(() => v.view.locator('[data-testid="execution"] h2').textContent(), (t) => expect(t).toContain(`#${last} `));
    expect((await v.calls()).length).toBe(2);
    await v.page.setViewportSize({ width: 480, height: 740 });
  } finally {
    await v.close();
  }
  const w = await hostView(browser, { html, result: inspect, width: 400, height: 700, callTool: async (n, a) => (await host.client.callTool({ name: n, arguments: a })) as Json });
  try {
    await until(() => w.view.locator('[data-testid="timeline"] button.exec').count(), (n) => expect(n).toBe(history.length));
    await w.view.locator('[data-testid="timeline"] button.exec').nth(2).click();
    await until(() => w.view.locator('[data-testid="execution"]').count(), (n) => expect(n).toBe(1));
    await w.page.screenshot({ path: screenshotPath('mcp-apps-graph-run-400') });
  } finally {
    await w.close();
  }
});
