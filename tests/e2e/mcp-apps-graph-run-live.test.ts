/**
 * The graph run view kept live (docs/mcp-apps.md "Live views"): a slow graph run started through ANOTHER server
 * process on the same data dir, shown by graph_inspect in the host's process (answered from the run's live record),
 * grows in the framed view — its path, its timeline — and completes there without focus, Refresh or a new tool
 * result; a view whose person travelled keeps its position, one that did not follows the newest; polls stop once the
 * run ended. Over HTTP (2026-07-28) the run's changes are told to the identity that ran it, never to another one.
 * The real built servers, the SDK's v2 client as the host, the extension SDK's AppBridge in headless Chromium.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { tempDir } from './helpers/server-process';
import { APPS_CAPABILITIES, connectHost, hostView, readViewHtml, until, type HostedView } from './helpers/apps-host';
import { HttpServerProcess } from './helpers/http-server';
import { connectModernHttp, type ModernConn } from './helpers/modern-client';
import { slowLoopGraph } from './helpers/slow-loop-graph';
import { launchBrowser, screenshotPath, type Browser } from '../helpers/browser';

jest.setTimeout(Number(process.env.APPS_TEST_TIMEOUT ?? 180_000));

type Json = Record<string, any>;
let tmp: ReturnType<typeof tempDir>;
let graphs: string[];
let browser: Browser;

beforeAll(async () => {
  tmp = tempDir('wg-apps-run-live-');
  fs.writeFileSync(path.join(tmp.dir, 'slow.yaml'), slowLoopGraph('slow'));
  graphs = ['--graphs', path.join(tmp.dir, 'slow.yaml')];
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  tmp?.cleanup();
});

async function firstRun(list: () => Promise<Array<{ uri: string }>>): Promise<string> {
  let id: string | undefined;
  await until(list, (rs) => {
    const run = rs.find((r) => r.uri.startsWith('workgraph://graph/runs/'));
    expect(run).toBeDefined();
    id = run!.uri.slice('workgraph://graph/runs/'.length);
  }, 60_000);
  return id!;
}

const text = (v: HostedView, id: string) => v.view.locator(`[data-testid="${id}"]`).textContent();
const execs = (v: HostedView) => v.view.locator('[data-testid="timeline"] button.exec').count();

test('a run another process runs grows in the view and completes there; the travelled position is kept, the other follows the newest; polls stop at the end', async () => {
  const dataDir = path.join(tmp.dir, 'data');
  const host = await connectHost({ dataDir, args: graphs });
  const runner = await connectHost({ dataDir, args: graphs, apps: false });
  try {
    const running = runner.client.callTool({ name: 'slow_loop', arguments: { n: 20, ms: 1000 } }, { timeout: 120_000 });
    const executionId = await firstRun(async () => (await host.client.listResources()).resources);
    const inspect = (await host.client.callTool({ name: 'graph_inspect', arguments: { executionId } })) as Json;
    expect(inspect.structuredContent.status).toBe('running');
    expect(inspect._meta['workgraph/runGraph'].nodes).toHaveLength(6);
    const html = await readViewHtml(host.client, 'graph-run');
    const callTool = async (n: string, a: Json) => (await host.client.callTool({ name: n, arguments: a })) as Json;
    const following = await hostView(browser, { html, result: inspect, input: { executionId }, width: 1200, height: 900, callTool });
    const travelled = await hostView(browser, { html, result: inspect, input: { executionId }, width: 1200, height: 900, callTool });
    try {
      const handed = inspect.structuredContent.history.length;
      await until(() => text(following, 'run-status'), (t) => expect(t).toBe('running'));
      await travelled.view.locator('.exec-timeline button.exec').first().click();
      await until(() => text(travelled, 'travel-at'), (t) => expect(t).toMatch(/^#0 of \d+$/));
      // While it runs: executions join the timeline and the loop's visits grow, without any action in the view.
      await until(() => execs(following), (n) => expect(n).toBeGreaterThan(handed), 30_000);
      await until(() => text(following, 'run-status'), (t) => expect(t).toMatch(/running|finished/));
      const wait = following.view.locator('.graph-node[data-node="wait"] [data-testid="node-visits"]');
      const early = await wait.textContent();
      // The node running now is shown as such: named with its execution's index — past the newest the view travels
      // to — and highlighted in the drawing as running, not as an execution to see.
      await until(() => text(following, 'run-now'), (t) => expect(t).toMatch(/^Running now: (wait|count|check|done|exit) \(#\d+, in progress/), 30_000);
      const now = await following.view.evaluate(() => {
        const doc = (globalThis as any).document;
        const text = (id: string) => doc.querySelector(`[data-testid="${id}"]`)?.textContent ?? '';
        const m = /^Running now: (\S+) \(#(\d+)/.exec(text('run-now'));
        return {
          node: m?.[1],
          index: Number(m?.[2]),
          at: Number(/^#(\d+) of (\d+) \(newest\)$/.exec(text('travel-at'))?.[1]),
          last: Math.max(...[...doc.querySelectorAll('[data-testid="timeline"] button.exec')].map((b: any) => Number(b.dataset.exec))),
          running: [...doc.querySelectorAll('.graph-node.running-at')].map((n: any) => n.dataset.node),
        };
      });
      expect(now.at).toBe(now.last);
      expect(now.index).toBeGreaterThan(now.at);
      expect(now.running).toEqual([now.node]);
      await following.page.screenshot({ path: screenshotPath('mcp-apps-graph-run-live-1200') });
      // The travelled view's Next steps through finished executions only: each one it lands on is in its timeline and
      // read without an error; at the newest it holds, Next is disabled (the node running now is not one to step to).
      for (let step = 1; step <= 6; step++) {
        const next = travelled.view.locator('[data-testid="travel-next"]');
        if (await next.isDisabled()) break;
        await next.click();
        await until(() => travelled.view.locator('[data-testid="execution"] h2').textContent(), (t) => expect(t).toMatch(new RegExp(`^#${step} `)));
        expect(await travelled.view.locator(`[data-testid="timeline"] button.exec[data-exec="${step}"]`).count()).toBe(1);
      }
      const atEnd = async () => {
        const at = Number(/^#(\d+)/.exec((await text(travelled, 'travel-at'))!)?.[1]);
        const held = await travelled.view.locator('[data-testid="timeline"] button.exec').count();
        return { at, held, disabled: await travelled.view.locator('[data-testid="travel-next"]').isDisabled() };
      };
      while (!(await atEnd()).disabled) {
        await travelled.view.locator('[data-testid="travel-next"]').click();
        await new Promise((r) => setTimeout(r, 50));
      }
      const end = await atEnd();
      expect(end.at).toBeLessThanOrEqual(end.held - 1);
      expect(await travelled.view.locator('[data-testid="view-error"]').count()).toBe(0);
      // Back to #0 for what follows (the travelled view keeps its position).
      await travelled.view.locator('.exec-timeline button.exec[data-exec="0"]').click();
      await until(() => text(travelled, 'travel-at'), (t) => expect(t).toMatch(/^#0 of \d+$/));
      // Its end: status, result, the whole path — every node ran, every edge taken, the loop 20 times.
      await running;
      await until(() => text(following, 'run-status'), (t) => expect(t).toBe('finished'), 30_000);
      const final = (await host.client.callTool({ name: 'graph_inspect', arguments: { executionId } })) as Json;
      const total = final.structuredContent.historyTotal as number;
      await until(() => execs(following), (n) => expect(n).toBe(total));
      expect(await wait.textContent()).toBe('20×');
      expect(early).not.toBe('20×');
      expect(await text(following, 'run-path')).toContain('6 of 6 nodes ran, 6 of 6 edges taken');
      // Not travelled: on the newest execution; travelled: still where the person went.
      expect(await text(following, 'travel-at')).toBe(`#${total - 1} of ${total - 1} (newest)`);
      await until(() => text(travelled, 'run-status'), (t) => expect(t).toBe('finished'), 30_000);
      expect(await text(travelled, 'travel-at')).toBe(`#0 of ${total - 1}`);
      await until(() => execs(travelled), (n) => expect(n).toBe(total));
      // Re-read from the newest execution the view had, never the whole run again.
      const reads = (await following.calls()).filter((c) => c.name === 'graph_inspect');
      expect(reads.length).toBeGreaterThan(0);
      for (const r of reads) expect(r.arguments).toMatchObject({ executionId, limit: 1000 });
      expect(reads.some((r) => (r.arguments!.offset as number) > 0)).toBe(true);
      // Finished: no more polls.
      const polls = (await following.polls()).length;
      expect(polls).toBeGreaterThan(0);
      for (const p of await following.polls()) expect(p.arguments).toEqual({ resources: [`workgraph://graph/runs/${executionId}`] });
      await new Promise((r) => setTimeout(r, 5_000));
      expect((await following.polls()).length).toBe(polls);
    } finally {
      await following.close();
      await travelled.close();
    }
  } finally {
    await host.close();
    await runner.close();
  }
});

describe('over HTTP (2026-07-28): two identities', () => {
  const A = 'alice-token-0123456789abcdef';
  const B = 'bob-token-0123456789abcdefgh';
  let server: HttpServerProcess;
  const conns: ModernConn[] = [];
  beforeAll(async () => {
    const tokens = path.join(tmp.dir, 'tokens');
    fs.writeFileSync(tokens, [`${A} name=alice scopes=read,write,run`, `${B} name=bob scopes=read,write,run`].join('\n'));
    server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'http-data'), args: ['--auth-token-file', tokens, ...graphs] });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
    server?.kill();
  });
  const conn = async (token: string, apps: boolean) => {
    const c = await connectModernHttp(server.url, { token, capabilities: apps ? APPS_CAPABILITIES : {} });
    conns.push(c);
    return c.client;
  };
  const ok = async (c: Client, name: string, args: Json): Promise<Json> => {
    const r = await c.callTool({ name, arguments: args });
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent as Json;
  };

  test("the run's changes are told to the view of the identity that ran it; another identity learns nothing of it", async () => {
    const aliceAgent = await conn(A, false);
    const aliceView = await conn(A, true);
    const bobView = await conn(B, true);
    const running = aliceAgent.callTool({ name: 'slow_loop', arguments: { n: 10, ms: 1000 } }, { timeout: 120_000 });
    const runId = await firstRun(async () => (await aliceView.listResources()).resources);
    const uri = `workgraph://graph/runs/${runId}`;
    const ask = (c: Client) => ok(c, 'resource_changes', { resources: [uri] });
    const a0 = await ask(aliceView);
    const b0 = await ask(bobView);
    await until(() => ask(aliceView), (a) => expect(a.resources[0].changedAt).not.toBe(a0.resources[0].changedAt), 20_000);
    await running;
    const a1 = await ask(aliceView);
    expect(a1.resources[0].changedAt > a0.now).toBe(true);
    // Bob: no change time, no listing, no read, no inspect — as for a run that does not exist.
    const b1 = await ask(bobView);
    expect(b0.resources[0].changedAt).toBeNull();
    expect(b1.resources[0].changedAt).toBeNull();
    expect((await bobView.listResources()).resources.map((r) => r.uri)).not.toContain(uri);
    await expect(bobView.readResource({ uri })).rejects.toThrow(/not_found/);
    const inspect = await bobView.callTool({ name: 'graph_inspect', arguments: { executionId: runId } });
    expect(inspect.isError).toBe(true);
    expect(JSON.stringify(inspect.content)).toContain(`execution '${runId}' not found`);
    expect(await ok(aliceView, 'graph_inspect', { executionId: runId })).toMatchObject({ status: 'finished' });
  });
});
