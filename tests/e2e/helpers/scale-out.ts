import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HttpServerProcess } from './http-server';
import { connectModernHttp, type ModernConn } from './modern-client';

/**
 * Scale-out tests' shared parts (tests/e2e/scale-out*.test.ts, docs/scaling.md): instances of `serve --http` on fixed
 * ports (a restarted instance comes back where the balancer expects it), callers that retry a failed call as a real
 * client does — a modern one (SDK v2, no session: any instance) and a legacy one (SDK v1, a session: a new one when its
 * instance is gone) — and the mixed traffic with what is checked after it. (Subscribers of both eras that listen
 * again when their stream ends: scale-out-subscribers.ts.)
 */
export type Answer = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** `count` instances on one database, each on a port of its own that survives a restart. */
export class Instances {
  readonly list: HttpServerProcess[] = [];
  private constructor(
    readonly ports: number[],
    private readonly args: (i: number) => { dataDir: string; args: string[] },
  ) {}

  static async start(count: number, args: (i: number) => { dataDir: string; args: string[] }): Promise<Instances> {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) ports.push(await freePort());
    const instances = new Instances(ports, args);
    // The first instance migrates the database; the others start on it.
    for (let i = 0; i < count; i++) instances.list.push(await instances.startOne(i));
    return instances;
  }

  get urls(): string[] {
    return this.ports.map((p) => `http://127.0.0.1:${p}/mcp`);
  }

  private startOne(i: number): Promise<HttpServerProcess> {
    return HttpServerProcess.start({ ...this.args(i), address: `127.0.0.1:${this.ports[i]}` });
  }

  /** SIGKILLs instance `i` and starts it again on its port once it is gone. */
  async killAndRestart(i: number, downMs = 0): Promise<void> {
    this.list[i]!.kill();
    await this.list[i]!.exited;
    if (downMs) await new Promise((r) => setTimeout(r, downMs));
    this.list[i] = await this.startOne(i);
  }

  killAll(): void {
    for (const s of this.list) s.kill();
  }
}

/**
 * A round-robin reverse proxy over `backends` in a few lines of node:http, with the one affinity docs/scaling.md asks
 * of a balancer: a request naming a legacy session (`Mcp-Session-Id`) goes to the instance that opened it (learnt from
 * the response that gave it out); everything else round robin.
 */
export function roundRobinProxy(backends: string[]): Promise<{ url: string; close: () => void; served: number[] }> {
  let next = 0;
  const served: number[] = backends.map(() => 0);
  const sticky = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const session = req.headers['mcp-session-id'];
    const known = typeof session === 'string' ? sticky.get(session) : undefined;
    const i = known ?? next++ % backends.length;
    served[i]!++;
    const target = new URL(backends[i]!);
    const upstream = http.request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } },
      (up) => {
        const given = up.headers['mcp-session-id'];
        if (typeof given === 'string') sticky.set(given, i);
        res.writeHead(up.statusCode ?? 502, up.headers);
        // An SSE stream's headers go out at once (a listen stream's first event may be minutes away), as a balancer's do.
        res.flushHeaders();
        up.pipe(res);
        // The instance died mid-answer (an open stream): the client sees its connection end, as behind a balancer.
        up.on('close', () => void (up.complete || res.destroy()));
      },
    );
    upstream.on('error', () => {
      if (res.headersSent) return void res.destroy();
      res.writeHead(502, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Bad Gateway: the instance is down' } }));
    });
    req.pipe(upstream);
    res.on('close', () => upstream.destroy());
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/mcp`, close: () => void (server.closeAllConnections(), server.close()), served }),
    ),
  );
}

/** Something that calls tools and retries a failed call until an instance answers it. */
export interface Caller {
  readonly era: 'modern' | 'legacy';
  call(name: string, args: Record<string, unknown>): Promise<Answer>;
  close(): Promise<void>;
}

const RETRIES = 60;
export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The answer, or undefined when the call must be retried (the instance was down or its store was). */
function settle(r: { isError?: boolean; content?: unknown; structuredContent?: unknown }): Answer | undefined {
  const text = JSON.stringify(r.content);
  if (r.isError && /storage_unavailable/.test(text)) return undefined;
  return r.isError ? { isError: true, text } : (r.structuredContent as Answer);
}

/** A modern client (SDK v2, 2026-07-28): on a failure a fresh client, nothing to re-negotiate — any instance will do. */
export class ModernCaller implements Caller {
  readonly era = 'modern';
  private constructor(
    private conn: ModernConn,
    private readonly url: string,
  ) {}

  static async open(url: string): Promise<ModernCaller> {
    for (let attempt = 0; ; attempt++) {
      try {
        return new ModernCaller(await connectModernHttp(url), url);
      } catch (e) {
        if (attempt > RETRIES) throw e;
        await pause(250);
      }
    }
  }

  async call(name: string, args: Record<string, unknown>): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      try {
        const answer = settle(await this.conn.client.callTool({ name, arguments: args }, { timeout: 30_000 }));
        if (answer) return answer;
      } catch {
        // The instance died under the call.
      }
      if (attempt > RETRIES) throw new Error(`${name} never answered`);
      await pause(250);
      await this.conn.close().catch(() => undefined);
      this.conn = await connectModernHttp(this.url).catch(() => this.conn);
    }
  }

  close(): Promise<void> {
    return this.conn.close();
  }
}

/** A v1 client's session; `onStream` hears when its GET stream (where the server's notifications come) is open. */
export async function connectLegacy(url: string, onStream?: () => void): Promise<{ client: LegacyClient; transport: LegacyTransport }> {
  const watching: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (init?.method === 'GET' && response.ok) onStream?.();
    return response;
  };
  const transport = new LegacyTransport(new URL(url), {
    fetch: watching,
    // No reconnection of its own: a dropped stream is noticed by the subscriber's ping and answered with a new session.
    reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 100, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1 },
  });
  const client = new LegacyClient({ name: 'workgraph-e2e-legacy', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return { client, transport };
}

/**
 * A 2025-era client (SDK v1, `initialize`, a session on the instance that answered it). When that instance dies its
 * session is gone (another instance answers the session id 404): the client opens a new session — on any instance — and
 * retries the call there.
 */
export class LegacyCaller implements Caller {
  readonly era = 'legacy';
  private conn?: { client: LegacyClient; transport: LegacyTransport };
  constructor(private readonly url: string) {}

  async call(name: string, args: Record<string, unknown>): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      try {
        this.conn ??= await connectLegacy(this.url);
        const answer = settle((await this.conn.client.callTool({ name, arguments: args }, undefined, { timeout: 30_000 })) as Answer);
        if (answer) return answer;
      } catch {
        // Its instance died (502 from the balancer, or 404: the restarted instance never saw this session).
        await this.drop();
      }
      if (attempt > RETRIES) throw new Error(`${name} never answered`);
      await pause(250);
    }
  }

  private async drop(): Promise<void> {
    const conn = this.conn;
    this.conn = undefined;
    await conn?.client.close().catch(() => undefined);
  }

  close(): Promise<void> {
    return this.drop();
  }
}

export interface TrafficResult {
  started: Map<string, number>;
  thoughts: string[];
  sessions: Array<{ id: string; steps: number }>;
}

/**
 * Mixed traffic (task starts, knowledge writes, session steps) from every caller until `seconds` are over; returns
 * what was acknowledged. Caller `c` starts tasks t<c*20>…t<c*20+19> of project `load`.
 */
export async function mixedTraffic(callers: Caller[], seconds: number): Promise<TrafficResult> {
  const result: TrafficResult = { started: new Map(), thoughts: [], sessions: [] };
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    callers.map(async (caller, c) => {
      let n = 0;
      const session = await caller.call('workflow_start', { workflowId: 'session-demo', context: { files: [] } });
      let token = session.continueToken as string;
      const mine = { id: session.sessionId as string, steps: 0 };
      result.sessions.push(mine);
      while (Date.now() < end) {
        const task = `t${c * 20 + (n % 20)}`;
        const r = await caller.call('start_task', { project: 'load', nodeId: task });
        if (!r.isError) result.started.set(task, (result.started.get(task) ?? 0) + 1);
        const id = `c${c}-${caller.era}-n${n}`;
        const added = await caller.call('add_nodes', { projectContext: 'load', nodes: [{ id, thought: `thought ${id}`, role: 'actor' }] });
        if (!added.isError) result.thoughts.push(id);
        if (token && mine.steps < 2) {
          const next = await caller.call('workflow_continue', { continueToken: token, output: { notesMarkdown: `step by client ${c}` } });
          // An acknowledged step (a blocked one is acknowledged as `output_blocked`, not as a completed step).
          if (!next.isError && next.status !== 'blocked') {
            mine.steps++;
            token = next.continueToken as string;
          } else if (!next.isError) token = (next.retryToken ?? next.continueToken ?? token) as string;
        }
        n++;
      }
    }),
  );
  return result;
}

/** The project mixedTraffic writes to, with enough tasks for `callers` callers. */
export function loadProject(root: string, callers: number): Record<string, unknown> {
  return { projectName: 'load', projectRoot: root, nodes: Array.from({ length: callers * 20 }, (_, i) => ({ id: `t${i}`, title: `T${i}`, depends_on: [] })) };
}

/** No task acknowledged twice; every acknowledged thought, task start and session step is there, read through `reader`. */
export async function expectNothingLost(reader: Caller, r: TrafficResult): Promise<void> {
  for (const [task, count] of r.started) expect([task, count]).toEqual([task, 1]);
  const ids = new Set<string>();
  for (let cursor: string | undefined, pages = 0; pages < 100; pages++) {
    const page = await reader.call('list_nodes', { projectContext: 'load', limit: 200, ...(cursor ? { cursor } : {}) });
    for (const id of JSON.stringify(page.nodes ?? page).match(/c\d+-(?:modern|legacy)-n\d+/g) ?? []) ids.add(id);
    cursor = page.nextCursor as string | undefined;
    if (!cursor) break;
  }
  for (const id of r.thoughts) expect(ids.has(id)).toBe(true);
  const graph = JSON.stringify(await reader.call('get_project_graph', { project: 'load' }));
  for (const task of r.started.keys()) expect(graph).toContain(`"${task}"`);
  for (const s of r.sessions) {
    const timeline = await reader.call('workflow_session', { sessionId: s.id });
    expect((JSON.stringify(timeline).match(/step_completed/g) ?? []).length).toBeGreaterThanOrEqual(s.steps);
  }
}

export const SESSION_WORKFLOWS = path.resolve(__dirname, '../../fixtures/session-workflows');
