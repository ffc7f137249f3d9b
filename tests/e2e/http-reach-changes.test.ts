import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { HttpServerProcess, waitFor, type HttpConn } from './helpers/http-server';
import { connectModernHttp, type ModernConn } from './helpers/modern-client';
import { tempDir } from './helpers/server-process';

/**
 * Issue 20: live views must not announce changes outside the subscriber's reach. Before, identity A's legacy
 * resource subscription to B's task graph, session or knowledge project heard every change B made, a modern
 * `subscriptions/listen` stream of A heard them (and a resource-list change for each), and every dashboard page got
 * every change event whatever its token. Now A's listeners hear nothing of B's task/session/knowledge changes, and
 * still hear their own.
 */
const A = 'alice-token-0123456789abcdef';
const B = 'bob-token-0123456789abcdefgh';

type Answer = CallToolResult & { structuredContent?: Record<string, any> };
async function ok(client: Client | ModernConn['client'], name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
  const r = (await client.callTool({ name, arguments: args })) as Answer;
  if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
  return r.structuredContent!;
}

/** A dashboard page's event stream (`api/events?token=`), its `change` events collected. */
async function dashboardEvents(origin: string, token: string): Promise<{ events: Array<Record<string, string>>; close: () => void }> {
  const ctl = new AbortController();
  const res = await fetch(`${origin}/dashboard/api/events?token=${token}`, { signal: ctl.signal });
  expect(res.status).toBe(200);
  const events: Array<Record<string, string>> = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = /^data: (.*)$/m.exec(frame);
          if (/^event: change$/m.test(frame) && data) events.push(JSON.parse(data[1]!));
        }
      }
    } catch {
      // aborted
    }
  })();
  return { events, close: () => ctl.abort() };
}

describe("one identity's live views hear nothing of another's changes, and still hear their own", () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: HttpServerProcess;
  let rootA: string;
  let rootB: string;
  const conns: Array<HttpConn | ModernConn> = [];

  beforeAll(async () => {
    tmp = tempDir('wg-reach-changes-');
    const base = fs.realpathSync(tmp.dir);
    rootA = path.join(base, 'a');
    rootB = path.join(base, 'b');
    fs.mkdirSync(rootA);
    fs.mkdirSync(rootB);
    const tokens = path.join(base, 'tokens');
    fs.writeFileSync(tokens, [`${A} name=alice roots=${rootA} scopes=read,write,run`, `${B} name=bob roots=${rootB} scopes=read,write,run`].join('\n'));
    server = await HttpServerProcess.start({ dataDir: path.join(base, 'data'), args: ['--auth-token-file', tokens, '--allow-root', base, '--dashboard'] });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(conns.map((c) => c.close().catch(() => undefined)));
    server?.kill();
    tmp.cleanup();
  });

  it('legacy resources/subscribe, modern subscriptions/listen and the dashboard event stream', async () => {
    const a = await server.connect({ token: A });
    const b = await server.connect({ token: B });
    conns.push(a, b);
    const node = { id: 't', title: 'T', depends_on: [] };
    await ok(a.client, 'init_project_graph', { projectName: 'Alpha', projectRoot: rootA, nodes: [node] });
    await ok(b.client, 'init_project_graph', { projectName: 'Beta', projectRoot: rootB, nodes: [node] });
    const sessionA = await ok(a.client, 'workflow_start', { workflowId: 'fix-failing-test', goal: 'alpha work', workspacePath: rootA });
    const sessionB = await ok(b.client, 'workflow_start', { workflowId: 'fix-failing-test', goal: 'beta work', workspacePath: rootB });
    const knowledgeA = (await ok(a.client, 'add_nodes', { projectContext: path.join(rootA, 'notes'), nodes: [{ thought: 'a1', role: 'actor' }] })).project as string;
    const knowledgeB = (await ok(b.client, 'add_nodes', { projectContext: path.join(rootB, 'notes'), nodes: [{ thought: 'b1', role: 'actor' }] })).project as string;
    expect(knowledgeB).not.toBe(knowledgeA);

    const urisOf = (tasks: string, session: string, knowledge: string) => [
      `workgraph://projects/${tasks}/tasks`,
      `workgraph://sessions/${session}`,
      `workgraph://knowledge/${knowledge}`,
    ];
    const bobs = urisOf('beta', sessionB.sessionId, knowledgeB);
    const alices = urisOf('alpha', sessionA.sessionId, knowledgeA);

    // alice's listeners, each asking for bob's resources as well as her own.
    const legacy: string[] = [];
    a.client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => void legacy.push(n.params.uri));
    for (const uri of [...bobs, ...alices]) await a.client.subscribeResource({ uri });
    const modern = await connectModernHttp(server.url, { token: A });
    conns.push(modern);
    const heard = { updated: [] as string[], listChanged: 0 };
    modern.client.setNotificationHandler('notifications/resources/updated', async (n) => void heard.updated.push(n.params.uri));
    modern.client.setNotificationHandler('notifications/resources/list_changed', async () => void heard.listChanged++);
    const sub = await modern.client.listen({ resourcesListChanged: true, resourceSubscriptions: [...bobs, ...alices] });
    expect(sub.honoredFilter).toMatchObject({ resourceSubscriptions: [...bobs, ...alices] });
    const page = await dashboardEvents(server.origin, A);
    // bob's own page, to know when his changes have been announced (to him).
    const bobPage = await dashboardEvents(server.origin, B);

    // bob changes his task graph, his session and his knowledge.
    await ok(b.client, 'start_task', { project: 'Beta', nodeId: 't' });
    await ok(b.client, 'workflow_checkpoint', { continueToken: sessionB.continueToken, note: 'bob was here' });
    await ok(b.client, 'add_nodes', { projectContext: path.join(rootB, 'notes'), nodes: [{ thought: 'b2', role: 'actor' }] });
    await waitFor("bob's page heard his three kinds of change", () =>
      ['tasks', 'session', 'knowledge'].every((k) => bobPage.events.some((e) => e.kind === k)),
    );
    // The file watcher and the reach lookups take a moment: give bob's changes every chance to leak.
    await new Promise((r) => setTimeout(r, 1500));
    expect(legacy).toEqual([]);
    expect(heard).toEqual({ updated: [], listChanged: 0 });
    expect(page.events).toEqual([]);

    // alice's own changes: every one of her listeners hears them.
    await ok(a.client, 'start_task', { project: 'Alpha', nodeId: 't' });
    await ok(a.client, 'workflow_checkpoint', { continueToken: sessionA.continueToken, note: 'alice was here' });
    await ok(a.client, 'add_nodes', { projectContext: path.join(rootA, 'notes'), nodes: [{ thought: 'a2', role: 'actor' }] });
    await waitFor('the legacy subscription heard each of her resources', () => alices.every((u) => legacy.includes(u)));
    await waitFor('the listen stream heard each of her resources', () => alices.every((u) => heard.updated.includes(u)));
    await waitFor('her dashboard page heard each kind', () => ['tasks', 'session', 'knowledge'].every((k) => page.events.some((e) => e.kind === k)));
    expect(heard.listChanged).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 500));
    for (const uri of bobs) {
      expect(legacy).not.toContain(uri);
      expect(heard.updated).not.toContain(uri);
    }
    const bobIds = new Set(['beta', sessionB.sessionId, knowledgeB]);
    expect(page.events.filter((e) => bobIds.has(e.id!) || bobIds.has(e.project!))).toEqual([]);
    page.close();
    bobPage.close();
    await sub.close();
  }, 90_000);
});
