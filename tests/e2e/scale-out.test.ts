import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';
import { HttpServerProcess, waitFor } from './helpers/http-server';
import { connectModernHttp, type ModernConn } from './helpers/modern-client';
import { tempDir } from './helpers/server-process';

/**
 * Stateless scale-out (docs/scaling.md): three `serve --http` instances on one PostgreSQL database behind a
 * round-robin proxy (a few lines of node:http, no affinity), modern clients only through the proxy. Every request is
 * answered by whichever instance gets it; a subscription open on one instance hears a change made through another;
 * one instance SIGKILLed mid-traffic and started again: clients carry on by retrying a failed call, no acknowledged
 * write is lost and no task is started twice. CI-sized by default; `npm run stress` sets SCALE_OUT_SECONDS=30 and
 * SCALE_OUT_CLIENTS=16.
 */
const INSTANCES = 3;
const SECONDS = Number(process.env.SCALE_OUT_SECONDS || 6);
const CLIENTS = Number(process.env.SCALE_OUT_CLIENTS || 4);
const WORKFLOWS = path.resolve(__dirname, '../fixtures/session-workflows');

jest.setTimeout(180_000 + SECONDS * 3000);

type Answer = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A round-robin reverse proxy over `backends()` (re-read per request, so a restarted instance's port is used). */
function roundRobin(backends: () => string[]): Promise<{ url: string; close: () => void; served: number[] }> {
  let next = 0;
  const served: number[] = [];
  const server = http.createServer((req, res) => {
    const list = backends();
    const i = next++ % list.length;
    served[i] = (served[i] ?? 0) + 1;
    const target = new URL(list[i]!);
    const upstream = http.request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Gateway: the instance is down' } }));
    });
    req.pipe(upstream);
    res.on('close', () => upstream.destroy());
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, close: () => server.close(), served })),
  );
}

/** A tool call retried (a fresh client each time) until an instance answers it: what a modern client does. */
async function callWithRetry(conn: { current: ModernConn; url: string }, name: string, args: Record<string, unknown>): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    try {
      const r = await conn.current.client.callTool({ name, arguments: args }, { timeout: 30_000 });
      const text = JSON.stringify(r.content);
      if (r.isError && !/storage_unavailable/.test(text)) return { isError: true, text };
      if (!r.isError) return r.structuredContent as Answer;
    } catch {
      // The instance died under the call: a new client (nothing to re-negotiate: any instance will do).
    }
    if (attempt > 40) throw new Error(`${name} never answered`);
    await new Promise((r) => setTimeout(r, 250));
    await conn.current.close().catch(() => undefined);
    conn.current = await connectModernHttp(conn.url).catch(() => conn.current);
  }
}

describe(`${INSTANCES} stateless instances on one PostgreSQL behind a round-robin proxy`, () => {
  let pg: TestPostgres;
  let databaseUrl: string;
  let tmp: ReturnType<typeof tempDir>;
  const instances: HttpServerProcess[] = [];
  let proxy: Awaited<ReturnType<typeof roundRobin>>;

  const start = (i: number) =>
    HttpServerProcess.start({ dataDir: path.join(tmp.dir, `data-${i}`), args: ['--database-url', databaseUrl, '--workflows', WORKFLOWS, '--allow-root', tmp.dir] });

  beforeAll(async () => {
    tmp = tempDir('wg-scale-');
    pg = await startTestPostgres();
    databaseUrl = await pg.createTestDatabase();
    // The first instance migrates the database; the others start on it.
    instances.push(await start(0));
    for (let i = 1; i < INSTANCES; i++) instances.push(await start(i));
    proxy = await roundRobin(() => instances.map((s) => s.url));
  });
  afterAll(async () => {
    proxy?.close();
    for (const s of instances) s.kill();
    await pg?.stop();
    tmp?.cleanup();
  });

  it('any instance answers; a listener on one hears a task transition made through another', async () => {
    const root = path.join(tmp.dir, 'p-listen');
    fs.mkdirSync(root);
    const writer = await connectModernHttp(proxy.url);
    const watcher = await connectModernHttp(proxy.url);
    try {
      await writer.client.callTool({ name: 'init_project_graph', arguments: { projectName: 'listen', projectRoot: root, nodes: [{ id: 'a', title: 'A', depends_on: [] }] } });
      const updated: string[] = [];
      watcher.client.setNotificationHandler('notifications/resources/updated', async (n: { params: { uri: string } }) => void updated.push(n.params.uri));
      const uri = 'workgraph://projects/listen/tasks';
      const sub = await watcher.client.listen({ resourceSubscriptions: [uri] });
      // Several calls, each on the next instance: whichever holds the listen stream, the others make changes.
      for (let i = 0; i < INSTANCES; i++) {
        const r = await writer.client.callTool({ name: 'get_ready_tasks', arguments: { project: 'listen' } });
        expect(r.isError).toBeFalsy();
      }
      await writer.client.callTool({ name: 'start_task', arguments: { project: 'listen', nodeId: 'a' } });
      await waitFor('resources/updated heard through another instance', () => updated.includes(uri));
      await sub.close();
      expect(proxy.served.filter((n) => n > 0).length).toBe(INSTANCES);
    } finally {
      await writer.close();
      await watcher.close();
    }
  });

  it(`${CLIENTS} modern clients for ${SECONDS} s, one instance SIGKILLed and restarted: no acknowledged write lost, no task started twice`, async () => {
    const root = path.join(tmp.dir, 'p-load');
    fs.mkdirSync(root);
    const nodes = Array.from({ length: CLIENTS * 20 }, (_, i) => ({ id: `t${i}`, title: `T${i}`, depends_on: [] }));
    const setup = { current: await connectModernHttp(proxy.url), url: proxy.url };
    await callWithRetry(setup, 'init_project_graph', { projectName: 'load', projectRoot: root, nodes });
    const started = new Map<string, number>();
    const thoughts: string[] = [];
    const sessions: Array<{ id: string; steps: number }> = [];
    const end = Date.now() + SECONDS * 1000;
    let killed = false;
    const killer = (async () => {
      await new Promise((r) => setTimeout(r, (SECONDS * 1000) / 3));
      instances[1]!.kill();
      killed = true;
      await instances[1]!.exited;
      instances[1] = await start(1);
    })();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const conn = { current: await connectModernHttp(proxy.url), url: proxy.url };
        let n = 0;
        const session = await callWithRetry(conn, 'workflow_start', { workflowId: 'session-demo', context: { files: [] } });
        let token = session.continueToken as string;
        const mine = { id: session.sessionId as string, steps: 0 };
        sessions.push(mine);
        while (Date.now() < end) {
          const task = `t${c * 20 + (n % 20)}`;
          const r = await callWithRetry(conn, 'start_task', { project: 'load', nodeId: task });
          if (!r.isError) started.set(task, (started.get(task) ?? 0) + 1);
          const id = `c${c}-n${n}`;
          const added = await callWithRetry(conn, 'add_nodes', { projectContext: 'load', nodes: [{ id, thought: `thought ${id}`, role: 'actor' }] });
          if (!added.isError) thoughts.push(id);
          if (token && mine.steps < 2) {
            const next = await callWithRetry(conn, 'workflow_continue', { continueToken: token, output: { notesMarkdown: `step by client ${c}` } });
            // An acknowledged step (a blocked one is acknowledged as `output_blocked`, not as a completed step).
            if (!next.isError && next.status !== 'blocked') {
              mine.steps++;
              token = next.continueToken as string;
            } else if (!next.isError) token = (next.retryToken ?? next.continueToken ?? token) as string;
          }
          n++;
        }
        await conn.current.close();
      }),
    );
    await killer;
    expect(killed).toBe(true);
    // No task was started twice: a second start_task of one node is refused (it is IN_PROGRESS), never acknowledged.
    for (const [task, count] of started) expect([task, count]).toEqual([task, 1]);
    // Every acknowledged write is there, read through the proxy (any instance).
    const ids = new Set<string>();
    for (let cursor: string | undefined, pages = 0; pages < 100; pages++) {
      const page = await callWithRetry(setup, 'list_nodes', { projectContext: 'load', limit: 200, ...(cursor ? { cursor } : {}) });
      for (const id of JSON.stringify(page.nodes ?? page).match(/c\d+-n\d+/g) ?? []) ids.add(id);
      cursor = page.nextCursor as string | undefined;
      if (!cursor) break;
    }
    for (const id of thoughts) expect(ids.has(id)).toBe(true);
    const graph = await callWithRetry(setup, 'get_project_graph', { project: 'load' });
    for (const task of started.keys()) expect(JSON.stringify(graph)).toContain(task);
    for (const s of sessions) {
      const timeline = await callWithRetry(setup, 'workflow_session', { sessionId: s.id });
      const completed = (JSON.stringify(timeline).match(/step_completed/g) ?? []).length;
      expect(completed).toBeGreaterThanOrEqual(s.steps);
    }
    await setup.current.close();
    expect(thoughts.length).toBeGreaterThan(CLIENTS);
  });
});

export type { Client };
