/**
 * Knowledge search results as an MCP Apps view, end to end (tests/e2e/helpers/apps-host: the real built server, the
 * SDK's v2 client as the host, the extension SDK's AppBridge framing the view in headless Chromium): search_nodes'
 * hits drawn as handed (no tool call), their matched words marked; "More results" is a search_nodes call with the
 * same query and the result's cursor; a later result replaces the list.
 */
import type { Client } from '@modelcontextprotocol/client';
import { tempDir } from './helpers/server-process';
import { connectHost, cutLines, hostView, lowContrast, readViewHtml, until } from './helpers/apps-host';
import { launchBrowser, screenshotPath, type Browser } from '../helpers/browser';

jest.setTimeout(Number(process.env.APPS_TEST_TIMEOUT ?? 180_000));

type Json = Record<string, any>;
let data: { dir: string; cleanup: () => void };
let host: { client: Client; close: () => Promise<void> };
let browser: Browser;
const CONTEXT = '/work/parser-notes';

async function call(name: string, args: Json): Promise<Json> {
  const r = await host.client.callTool({ name, arguments: args });
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return r as Json;
}

beforeAll(async () => {
  data = tempDir('wg-apps-knowledge-');
  host = await connectHost({ dataDir: data.dir });
  await call('add_nodes', {
    projectContext: CONTEXT,
    nodes: [
      { thought: 'Use a recursive descent parser for the config language', role: 'actor', tags: ['design', 'parser'] },
      { thought: 'The parser must report the line and column of an error', role: 'critic', tags: ['review'] },
      { thought: 'Parser benchmarks: 40 MB/s on the sample configs', role: 'summary', tags: ['perf'] },
      { thought: 'Ship the CLI with a --json flag', role: 'actor', tags: ['cli'] },
    ],
  });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await host?.close();
  data?.cleanup();
});

test('draws the hits it is handed, matched words marked; More results pages through search_nodes; a later result replaces them', async () => {
  const html = await readViewHtml(host.client, 'knowledge-search');
  const input = { projectContext: CONTEXT, query: 'parser', limit: 2 };
  const first = await call('search_nodes', input);
  expect(first.structuredContent.hits).toHaveLength(2);
  expect(first.structuredContent.nextCursor).toBeTruthy();
  const v = await hostView(browser, { html, result: first, input, width: 400, height: 600, callTool: async (n, a) => (await host.client.callTool({ name: n, arguments: a })) as Json });
  try {
    await until(() => v.view.locator('[data-testid="hits"] li').count(), (n) => expect(n).toBe(2));
    expect((await v.view.locator('[data-testid="hits"] mark').allTextContents()).map((t) => t.toLowerCase())).toContain('parser');
    expect(await v.view.locator('[data-testid="hit-count"]').textContent()).toBe(`2 of ${first.structuredContent.total} hits`);
    expect(await v.calls()).toEqual([]);
    expect(await cutLines(v.view)).toEqual([]);
    await v.page.screenshot({ path: screenshotPath('mcp-apps-knowledge-search-400') });
    await v.setContext({ theme: 'dark' });
    await until(() => v.view.evaluate(() => (globalThis as any).document.documentElement.dataset.theme), (t) => expect(t).toBe('dark'));
    expect(await lowContrast(v.view)).toEqual([]);
    expect(await cutLines(v.view)).toEqual([]);
    await v.page.screenshot({ path: screenshotPath('mcp-apps-knowledge-search-400-dark') });

    await v.view.locator('[data-testid="more-hits"]').click();
    await until(() => v.view.locator('[data-testid="hits"] li').count(), (n) => expect(n).toBe(3));
    expect(await v.calls()).toEqual([{ name: 'search_nodes', arguments: { ...input, cursor: first.structuredContent.nextCursor } }]);

    const other = await call('search_nodes', { projectContext: CONTEXT, query: 'json' });
    await v.sendResult(other);
    await until(() => v.view.locator('[data-testid="hits"] li').count(), (n) => expect(n).toBe(1));
    expect(await v.view.locator('[data-testid="hits"] li').textContent()).toContain('--json flag');
  } finally {
    await v.close();
  }
  // The same hits in a wide frame (a host's fullscreen or a wide chat): one line of facts per hit, nothing cut.
  const wide = await hostView(browser, { html, result: first, input, width: 1200, height: 420, callTool: async (n, a) => (await host.client.callTool({ name: n, arguments: a })) as Json });
  try {
    await until(() => wide.view.locator('[data-testid="hits"] li').count(), (n) => expect(n).toBe(2));
    const m = await wide.view.evaluate(() => ({ scroll: (globalThis as any).document.documentElement.scrollWidth, width: (globalThis as any).document.documentElement.clientWidth }));
    expect(m.scroll).toBeLessThanOrEqual(m.width);
    await wide.page.screenshot({ path: screenshotPath('mcp-apps-knowledge-search-1200') });
  } finally {
    await wide.close();
  }
});
