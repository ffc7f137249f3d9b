import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../kernel/logger';
import type { ChangeEvents } from '../../kernel/change-events';
import type { ChangeReacher } from '../../kernel/change-reach';
import type { RequestTarget } from '../../kernel/http/request-target';
import type { DashboardBackend } from '../dashboard-backend';
import { requestToken } from './access-token';
import { hasScope, LOCAL_IDENTITY, type Identity } from '../../kernel/identity';
import { runAsDashboardCaller } from '../dashboard-caller';
import { httpError, toHttpError, type HttpError } from './error-status';
import { changeCountText, SseHub } from './sse-hub';
import { serveStatic } from './static-files';
import { breakpointsBody, debugStartBody } from './debug-requests';

export interface DashboardHttpOptions {
  backend: DashboardBackend;
  /**
   * Whether the token a request carries (Bearer header or ?token=) opens the API: the one printed token of
   * `workgraph dashboard`, or any of the HTTP transport's bearer tokens when mounted beside `/mcp` — and as whom: the
   * token's identity (`true`: the local identity). Every use case of the request runs as it.
   */
  authorize: (token: string | undefined) => Promise<boolean | Identity>;
  /** POST endpoints answer 403 unless true. */
  allowActions: boolean;
  /** The built front end (dist/dashboard). */
  staticRoot: string;
  /** The kernel's change-event port: every store change (in-process, the data-dir watcher, the database's NOTIFY). */
  events: ChangeEvents;
  logger: Logger;
  /** Shown by /api/meta. */
  info: { version: string; dataDir: string; sessions: boolean };
  /** Path prefix the dashboard is mounted under (default '/'; e.g. '/dashboard/' on the HTTP transport). */
  basePath?: string;
  /**
   * The modules' change reachers: a page hears a change only when its token's identity reaches it. Without them,
   * only an identity that reaches everything hears changes.
   */
  reachers?: () => readonly ChangeReacher[];
}

type Params = Record<string, string>;
type Query = URLSearchParams;
interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  names: string[];
  run: (p: Params, q: Query, body: unknown) => Promise<unknown>;
  action?: string;
  /** Answered only with --allow-actions (a GET of the debugger: read-only dashboards offer nothing of it). */
  actionsOnly?: boolean;
}

/** `/projects/:project/tasks` → a RegExp with named segments. */
function route(method: Route['method'], path: string, run: Route['run'], action?: string, actionsOnly = false): Route {
  const names: string[] = [];
  const pattern = new RegExp(
    '^' + path.replace(/:([a-zA-Z]+)/g, (_m, n: string) => {
      names.push(n);
      return '([^/]+)';
    }) + '$',
  );
  return { method, pattern, names, run, ...(action ? { action } : {}), ...(actionsOnly ? { actionsOnly } : {}) };
}

const MAX_BODY_BYTES = 1 << 20;

/** The change counter an API answer was read at (`instance:count`, sse-hub.ts). */
const CHANGES_HEADER = 'X-Workgraph-Changes';

/**
 * The JSON body of an action, at most 1 MiB. A larger one is read to its end and thrown away (the request timeout
 * bounds how long that may take), so the client gets the 413 answer rather than a reset connection mid-upload.
 */
function readJsonBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(req.headers['content-length']) > MAX_BODY_BYTES;
    req.on('data', (c: Buffer) => {
      if (tooLarge) return;
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (tooLarge) return reject(httpError(413, 'invalid_arguments', `body: larger than ${MAX_BODY_BYTES} bytes`));
      const text = Buffer.concat(chunks).toString('utf8');
      if (!text.trim()) return resolve({});
      try {
        resolve(JSON.parse(text));
      } catch (e) {
        reject(httpError(400, 'invalid_arguments', `body: not valid JSON (${(e as Error).message})`));
      }
    });
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    ...headers,
  });
  res.end(text);
}

function stringArray(v: unknown, field: string): string[] {
  if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'string')) {
    throw httpError(400, 'invalid_arguments', `${field}: expected a non-empty array of strings`);
  }
  return v as string[];
}

function optionalInt(q: Query, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw httpError(400, 'invalid_arguments', `${name}: expected a non-negative integer`);
  return n;
}

/**
 * The dashboard over HTTP: the JSON API under `api/`, its SSE stream at `api/events`, the front end for every other
 * path. The API answers 401 without the access token; the page itself loads without it (and shows no data).
 */
export class DashboardHttp {
  private readonly hub: SseHub;
  private readonly routes: Route[];
  private readonly base: string;
  private readonly unsubscribe: () => void;

  constructor(private readonly o: DashboardHttpOptions) {
    this.base = (o.basePath ?? '/').replace(/\/?$/, '/');
    this.hub = new SseHub(o.reachers);
    this.unsubscribe = o.events.subscribe((e) => void this.hub.publish(e));
    const b = o.backend;
    this.routes = [
      route('GET', '/meta', async () => ({
        version: o.info.version,
        allowActions: o.allowActions,
        dataDir: o.info.dataDir,
        features: { sessions: o.info.sessions },
      })),
      route('GET', '/overview', () => b.overview()),
      route('GET', '/projects/:project/tasks', (p) => b.taskGraph(p.project)),
      route('GET', '/projects/:project/tasks/:node', (p) => b.taskDetails(p.project, p.node)),
      route('POST', '/projects/:project/tasks/:node/reset', (p) => b.resetTask(p.project, p.node), 'reset_task_node'),
      route('GET', '/sessions', () => b.sessions()),
      route('GET', '/sessions/:id', (p, q) => b.session(p.id, q.get('cursor') ?? undefined)),
      route('GET', '/graphs', () => b.graphTools()),
      route('GET', '/graphs/:tool', (p, q) => b.graphTool(p.tool, q.get('run') ?? undefined)),
      route('POST', '/graphs/:tool/run', (p, _q, body) => b.runGraphTool(p.tool, (body as { args?: unknown }).args ?? {}), 'run_graph_tool'),
      // The debugger: debug runs held by this process (docs/dashboard.md "Debugger").
      route('POST', '/graphs/:tool/debug', (p, _q, body) => b.debugGraphTool(p.tool, debugStartBody(body)), 'debug_graph_tool'),
      route('GET', '/debug/:run', (p) => b.debugRun(p.run), undefined, true),
      ...(['pause', 'resume', 'step', 'stop'] as const).map((action) => route('POST', `/debug/:run/${action}`, (p) => b.controlDebugRun(p.run, { action }), `debug_${action}`)),
      route('POST', '/debug/:run/breakpoints', (p, _q, body) => b.controlDebugRun(p.run, breakpointsBody(body)), 'debug_breakpoints'),
      route('GET', '/runs/:run', (p) => b.graphRun(p.run)),
      route('GET', '/runs/:run/executions/:index', (p) => {
        const index = Number(p.index);
        if (!Number.isInteger(index) || index < 0) throw httpError(400, 'invalid_arguments', 'index: expected a non-negative integer');
        return b.graphRunExecution(p.run, index);
      }),
      route('GET', '/knowledge', () => b.knowledgeProjects()),
      route('GET', '/knowledge/:project/nodes', (p, q) =>
        b.knowledgeNodes(p.project, {
          role: q.get('role') || undefined,
          tag: q.get('tag') || undefined,
          text: q.get('q') || undefined,
          cursor: q.get('cursor') || undefined,
          limit: optionalInt(q, 'limit'),
        }),
      ),
      route('GET', '/knowledge/:project/nodes/:id', (p) => b.knowledgeNode(p.project, p.id)),
      route('GET', '/knowledge/:project/deleted', (p) => b.knowledgeDeleted(p.project)),
      route('GET', '/knowledge/:project/backups', (p) => b.knowledgeBackups(p.project)),
      route('POST', '/knowledge/:project/restore', (p, _q, body) => b.restoreKnowledge(p.project, stringArray((body as { nodeIds?: unknown }).nodeIds, 'nodeIds')), 'restore_nodes'),
    ];
  }

  /**
   * A handler of the request entry (src/kernel/http/request-entry.ts), which checked the target: answers every
   * request under the base path (the API's promise settles once answered); returns false for other paths.
   */
  handle = (req: IncomingMessage, res: ServerResponse, target: RequestTarget): boolean | Promise<void> => {
    const url = target.url;
    if (!target.path.startsWith(this.base) && target.path !== this.base.slice(0, -1)) return false;
    if (target.path === this.base.slice(0, -1)) {
      res.writeHead(302, { Location: this.base + target.search });
      res.end();
      return true;
    }
    const rel = target.path.slice(this.base.length - 1);
    if (rel === '/api' || rel.startsWith('/api/')) return this.api(req, res, url, rel.slice(4) || '/');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, { error: { code: 'invalid_arguments', message: `method ${req.method} not allowed here` } });
      return true;
    }
    if (!serveStatic(this.o.staticRoot, rel, res)) {
      sendJson(res, 404, { error: { code: 'not_found', message: `no file ${rel} (was the dashboard built with npm run build?)` } });
    }
    return true;
  };

  close(): void {
    this.unsubscribe();
    this.hub.close();
  }

  private async api(req: IncomingMessage, res: ServerResponse, url: URL, path: string): Promise<void> {
    try {
      const who = await this.o.authorize(requestToken(req, url));
      if (!who) {
        throw httpError(401, 'unauthorized', 'missing or wrong access token: open the URL that `workgraph dashboard` (or `serve --dashboard`) printed');
      }
      const identity = who === true ? LOCAL_IDENTITY : who;
      if (path === '/events') {
        if (req.method !== 'GET') throw httpError(405, 'invalid_arguments', 'events: use GET');
        this.hub.add(res, identity);
        return;
      }
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      let matched: { r: Route; params: Params } | undefined;
      let methodMismatch = false;
      for (const r of this.routes) {
        const m = r.pattern.exec(path);
        if (!m) continue;
        if (r.method !== method) {
          methodMismatch = true;
          continue;
        }
        const params: Params = {};
        r.names.forEach((n, i) => {
          params[n] = decodeURIComponent(m[i + 1]);
        });
        matched = { r, params };
        break;
      }
      if (!matched) {
        throw methodMismatch ? httpError(405, 'invalid_arguments', `${req.method} not allowed on ${path}`) : httpError(404, 'not_found', `no API endpoint ${path}`);
      }
      const { r, params } = matched;
      if ((r.method === 'POST' || r.actionsOnly) && !this.o.allowActions) {
        throw httpError(403, 'read_only', 'the dashboard is read-only: start it with --allow-actions to enable actions');
      }
      // An action changes something: the token's identity needs `write`, as the tool would.
      if (r.method === 'POST' && !hasScope(identity, 'write')) {
        throw httpError(403, 'forbidden', `${r.action ?? 'this action'} needs the 'write' scope; identity '${identity.name}' has ${identity.scopes.map((x) => `'${x}'`).join(', ') || 'no scope'}`);
      }
      const body = r.method === 'POST' ? await readJsonBody(req) : undefined;
      if (r.action) this.o.logger.info('dashboard action', { action: r.action, ...params, ...(r.action === 'run_graph_tool' || r.action === 'debug_graph_tool' ? {} : { body }) });
      // The change counter before the answer is read: a change counted later may be missing from it (sse-hub.ts).
      const changes = changeCountText(this.hub.changeCount);
      const result = await runAsDashboardCaller(identity, () => r.run(params, url.searchParams, body));
      sendJson(res, 200, result, { [CHANGES_HEADER]: changes });
    } catch (e) {
      const err: HttpError = isHttpError(e) ? e : toHttpError(e);
      if (err.status >= 500) this.o.logger.warn('dashboard API error', { path, code: err.body.error.code, message: err.body.error.message });
      if (!res.headersSent) sendJson(res, err.status, err.body);
      else res.end();
    }
  }
}

function isHttpError(e: unknown): e is HttpError {
  return typeof e === 'object' && e !== null && typeof (e as HttpError).status === 'number' && typeof (e as HttpError).body?.error?.code === 'string';
}
