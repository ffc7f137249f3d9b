import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as http from 'node:http';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI, assertBuilt, serverEnv, type ServerEnvOptions } from './server-process';

/** A liveness bound for waits in these tests (not a speed figure: the machine is shared). */
export const LIVENESS_MS = 30_000;

/** The built server serving streamable HTTP (`serve --http 127.0.0.1:0 ...`), its URL read from the start line. */
export class HttpServerProcess {
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  url = '';

  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    child.stdin.on('error', () => undefined);
    this.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Starts `serve --http <address>` (default 127.0.0.1:0) with `args`; resolves once the start line names the URL. */
  static async start(opts: ServerEnvOptions & { address?: string }): Promise<HttpServerProcess> {
    assertBuilt();
    const env = serverEnv({ ...opts, env: { WORKGRAPH_LOG_LEVEL: 'info', ...opts.env } });
    const argv = [...(opts.wrap ?? []), process.execPath, CLI, 'serve', '--http', opts.address ?? '127.0.0.1:0', ...(opts.args ?? [])];
    const child = spawn(argv[0]!, argv.slice(1), { env, cwd: opts.cwd });
    const server = new HttpServerProcess(child);
    const deadline = Date.now() + LIVENESS_MS;
    for (;;) {
      const m = /serving on (?:stdio and )?(http:\/\/\S+\/mcp)/.exec(server.stderr);
      if (m) {
        server.url = m[1];
        return server;
      }
      const exited = await Promise.race([server.exited, new Promise((r) => setTimeout(() => r(undefined), 50))]);
      if (exited || Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error(`the server did not start: ${JSON.stringify(exited)} ${server.stderr.slice(-2000)}`);
      }
    }
  }

  get origin(): string {
    return new URL(this.url).origin;
  }

  /** An SDK client over StreamableHTTPClientTransport, optionally with a bearer token, capabilities and roots. */
  async connect(opts: { token?: string; capabilities?: Record<string, unknown>; roots?: string[]; name?: string } = {}): Promise<HttpConn> {
    const transport = new StreamableHTTPClientTransport(new URL(this.url), {
      requestInit: opts.token ? { headers: { Authorization: `Bearer ${opts.token}` } } : undefined,
    });
    const capabilities = { ...(opts.capabilities ?? {}), ...(opts.roots ? { roots: { listChanged: true } } : {}) };
    const client = new Client({ name: opts.name ?? 'workgraph-http-e2e', version: '1.0.0' }, { capabilities });
    if (opts.roots) {
      const roots = opts.roots.map((r) => ({ uri: pathToFileURL(r).href }));
      client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots }));
    }
    await client.connect(transport);
    return {
      client,
      transport,
      close: async () => {
        await transport.terminateSession().catch(() => undefined);
        await client.close();
      },
    };
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

export interface HttpConn {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** DELETE the session, then close the client. */
  close: () => Promise<void>;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One plain HTTP request (node:http, so Host and Origin can be set freely). */
export function rawRequest(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** The headers an MCP POST needs. */
export const MCP_POST_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

export const initializeBody = (id: number | string = 1) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });

export async function waitFor<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = LIVENESS_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
