import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { isAlive } from '../helpers/processes';
import { HttpServerProcess, LIVENESS_MS, MCP_POST_HEADERS, initializeBody, rawRequest, waitFor } from './helpers/http-server';
import { CLI, RawServer, serverEnv, tempDir } from './helpers/server-process';

/**
 * The HTTP transport as a network service: authentication, Origin/Host checks, the session cap, body bound, idle
 * sessions, DELETE, a vanished client, SIGTERM, stdio beside HTTP, and the refusal to bind off loopback without
 * tokens. Loopback addresses only.
 */
describe('streamable HTTP: authentication', () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: HttpServerProcess;
  beforeAll(async () => {
    tmp = tempDir('wg-http-auth-');
    const tokens = path.join(tmp.dir, 'tokens');
    fs.writeFileSync(tokens, '# agents\nright-token-12345\n\nsecond-token-456\n');
    server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data'), args: ['--auth-token-file', tokens] });
  }, 60_000);
  afterAll(() => {
    server?.kill();
    tmp.cleanup();
  });

  const metadataUrl = () => `${server.origin}/.well-known/oauth-protected-resource/mcp`;

  it('no token: 401 with a Bearer challenge pointing at the protected-resource metadata', async () => {
    const r = await rawRequest(server.url, { method: 'POST', headers: MCP_POST_HEADERS, body: initializeBody() });
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe(`Bearer resource_metadata="${metadataUrl()}"`);
    expect(JSON.parse(r.body).error.message).toMatch(/bearer token is required/);
  });

  it('a wrong token: 401 invalid_token; the SDK client is refused', async () => {
    const r = await rawRequest(server.url, { method: 'POST', headers: { ...MCP_POST_HEADERS, Authorization: 'Bearer right-token-1234' }, body: initializeBody() });
    expect(r.status).toBe(401);
    expect(r.headers['www-authenticate']).toBe(`Bearer resource_metadata="${metadataUrl()}", error="invalid_token"`);
    await expect(server.connect({ token: 'wrong' })).rejects.toThrow();
  });

  it('the right token: the SDK client works; another token cannot use its session', async () => {
    const conn = await server.connect({ token: 'right-token-12345' });
    try {
      const r = (await conn.client.callTool({ name: 'workflow_list', arguments: {} })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      const sessionId = conn.transport.sessionId!;
      const ping = JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' });
      const stolen = await rawRequest(server.url, {
        method: 'POST',
        headers: { ...MCP_POST_HEADERS, Authorization: 'Bearer second-token-456', 'Mcp-Session-Id': sessionId, 'Mcp-Protocol-Version': '2025-06-18' },
        body: ping,
      });
      expect(stolen.status).toBe(404);
    } finally {
      await conn.close();
    }
  });

  it('serves the RFC 9728 metadata document and the health endpoints without a token', async () => {
    const meta = await rawRequest(metadataUrl());
    expect(meta.status).toBe(200);
    expect(JSON.parse(meta.body)).toMatchObject({ resource: server.url, bearer_methods_supported: ['header'] });
    const health = await rawRequest(`${server.origin}/healthz`);
    expect([health.status, JSON.parse(health.body)]).toEqual([200, { status: 'ok' }]);
    const ready = await rawRequest(`${server.origin}/readyz`);
    expect([ready.status, JSON.parse(ready.body)]).toEqual([200, { status: 'ready' }]);
  });
});

describe('streamable HTTP: Origin, Host, cap, body, sessions', () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: HttpServerProcess;
  beforeAll(async () => {
    tmp = tempDir('wg-http-guard-');
    server = await HttpServerProcess.start({
      dataDir: path.join(tmp.dir, 'data'),
      args: ['--max-sessions', '2', '--session-idle-timeout', '1500ms', '--allow-root', tmp.dir, '--allowed-origins', 'https://app.example.com'],
    });
  }, 60_000);
  afterAll(() => {
    server?.kill();
    tmp.cleanup();
  });

  const initialize = (headers: Record<string, string> = {}) => rawRequest(server.url, { method: 'POST', headers: { ...MCP_POST_HEADERS, ...headers }, body: initializeBody() });

  it('an Origin that is not allowed is refused 403; loopback and --allowed-origins pass', async () => {
    const evil = await initialize({ Origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body).error.message).toBe("Origin 'http://evil.example' is not allowed (see --allowed-origins)");
    for (const origin of ['http://localhost:6274', 'https://app.example.com']) {
      const r = await initialize({ Origin: origin });
      expect(r.status).toBe(200);
      await rawRequest(server.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': String(r.headers['mcp-session-id']) } });
    }
  });

  it('a Host that is not allowed is refused 421', async () => {
    const r = await initialize({ Host: 'rebound.example:80' });
    expect(r.status).toBe(421);
  });

  it('a body over 16 MiB is answered 413', async () => {
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(16 * 1024 * 1024) } });
    const r = await rawRequest(server.url, { method: 'POST', headers: MCP_POST_HEADERS, body: big });
    expect(r.status).toBe(413);
    // The server goes on.
    expect((await rawRequest(`${server.origin}/healthz`)).status).toBe(200);
  });

  it('the session cap: 503 with Retry-After beyond --max-sessions; a closed session frees its place', async () => {
    const a = await server.connect();
    const b = await server.connect();
    try {
      const third = await initialize();
      expect(third.status).toBe(503);
      expect(third.headers['retry-after']).toBe('30');
      await expect(server.connect()).rejects.toThrow();
    } finally {
      await a.close();
    }
    const c = await server.connect();
    await c.close();
    await b.close();
  });

  it('DELETE ends a session (then 404); an idle session is closed after --session-idle-timeout', async () => {
    const opened = await initialize();
    const sid = String(opened.headers['mcp-session-id']);
    const ping = (id: string) =>
      rawRequest(server.url, { method: 'POST', headers: { ...MCP_POST_HEADERS, 'Mcp-Session-Id': id, 'Mcp-Protocol-Version': '2025-06-18' }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) });
    expect((await ping(sid)).status).toBe(200);
    expect((await rawRequest(server.url, { method: 'DELETE', headers: { 'Mcp-Session-Id': sid } })).status).toBe(200);
    expect((await ping(sid)).status).toBe(404);

    // Any request would reset the idle clock, so the session is left alone well past the timeout (1.5 s) and the sweep.
    const idle = String((await initialize()).headers['mcp-session-id']);
    await new Promise((r) => setTimeout(r, 5_000));
    expect((await ping(idle)).status).toBe(404);
  });

  it('a client that vanishes mid-stream does not block the others', async () => {
    const conn = await server.connect();
    const pidFile = path.join(tmp.dir, 'vanish.pid');
    try {
      const call = async (name: string, args: Record<string, unknown>) => {
        const r = (await conn.client.callTool({ name, arguments: args })) as CallToolResult;
        if (r.isError) throw new Error(JSON.stringify(r.content));
      };
      await call('init_project_graph', {
        projectName: 'vanish',
        projectRoot: tmp.dir,
        nodes: [{ id: 'long', title: 'Long', depends_on: [], validation_command: `sleep 30 & echo $! > '${pidFile}'; wait` }],
      });
      await call('start_task', { project: 'vanish', nodeId: 'long' });
      // A raw client in the same session starts the long call on its own SSE response and disappears.
      const req = http.request(server.url, {
        method: 'POST',
        headers: { ...MCP_POST_HEADERS, 'Mcp-Session-Id': conn.transport.sessionId!, 'Mcp-Protocol-Version': '2025-06-18' },
      });
      req.on('error', () => undefined);
      req.on('response', (res) => res.once('data', () => undefined));
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 'gone', method: 'tools/call', params: { name: 'validate_task_loop', arguments: { project: 'vanish', nodeId: 'long' } } }));
      const sleepPid = await waitFor('the command to start', () => (fs.existsSync(pidFile) && /^\d+$/.test(fs.readFileSync(pidFile, 'utf8').trim()) ? Number(fs.readFileSync(pidFile, 'utf8')) : undefined));
      req.destroy();
      // The session and the server still answer while the vanished call's command runs.
      const r = (await conn.client.callTool({ name: 'workflow_list', arguments: {} })) as CallToolResult;
      expect(r.isError).toBeFalsy();
      expect((await rawRequest(`${server.origin}/healthz`)).status).toBe(200);
      process.kill(sleepPid, 'SIGKILL');
    } finally {
      await conn.close();
    }
  });
});

/** How the server process ended, failing after LIVENESS_MS. */
async function exitOf(server: HttpServerProcess): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([server.exited, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no exit')), LIVENESS_MS)))]).finally(() => clearTimeout(timer));
}

describe('streamable HTTP: process', () => {
  it('SIGTERM during a running validation: the command tree is gone and the server exits 0', async () => {
    const tmp = tempDir('wg-http-term-');
    const server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data'), args: ['--allow-root', tmp.dir] });
    const pidFile = path.join(tmp.dir, 'term.pid');
    try {
      const conn = await server.connect();
      const call = (name: string, args: Record<string, unknown>) => conn.client.callTool({ name, arguments: args });
      await call('init_project_graph', {
        projectName: 'term',
        projectRoot: tmp.dir,
        nodes: [{ id: 'long', title: 'Long', depends_on: [], validation_command: `sleep 60 & echo $! > '${pidFile}'; wait` }],
      });
      await call('start_task', { project: 'term', nodeId: 'long' });
      void call('validate_task_loop', { project: 'term', nodeId: 'long' }).catch(() => undefined);
      const sleepPid = await waitFor('the command to start', () => (fs.existsSync(pidFile) && /^\d+$/.test(fs.readFileSync(pidFile, 'utf8').trim()) ? Number(fs.readFileSync(pidFile, 'utf8')) : undefined));
      server.child.kill('SIGTERM');
      const exit = await exitOf(server);
      expect(exit).toEqual({ code: 0, signal: null });
      await waitFor('the command tree to be gone', () => !isAlive(sleepPid));
      await conn.client.close().catch(() => undefined);
    } finally {
      server.kill();
      tmp.cleanup();
    }
  });

  it('SIGTERM while a validation that ends within --shutdown-grace runs: it finishes and is answered, then the server exits 0', async () => {
    const tmp = tempDir('wg-http-grace-');
    const server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data'), args: ['--allow-root', tmp.dir, '--shutdown-grace', '60'] });
    const started = path.join(tmp.dir, 'started');
    try {
      const conn = await server.connect();
      const call = (name: string, args: Record<string, unknown>) => conn.client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 }) as Promise<CallToolResult>;
      await call('init_project_graph', {
        projectName: 'grace',
        projectRoot: tmp.dir,
        nodes: [{ id: 'short', title: 'Short', depends_on: [], validation_command: `touch '${started}'; sleep 2; echo finished` }],
      });
      await call('start_task', { project: 'grace', nodeId: 'short' });
      const running = call('validate_task_loop', { project: 'grace', nodeId: 'short' });
      await waitFor('the command to start', () => fs.existsSync(started));
      server.child.kill('SIGTERM');
      const answer = await running;
      expect(answer.isError).toBeFalsy();
      expect((answer.structuredContent as { validation_passed?: boolean }).validation_passed).toBe(true);
      const exit = await exitOf(server);
      expect(exit).toEqual({ code: 0, signal: null });
      await conn.client.close().catch(() => undefined);
    } finally {
      server.kill();
      tmp.cleanup();
    }
  }, 120_000);

  it('with --http alone stdio is off: a request on stdin gets no answer, and the end of stdin does not stop the server', async () => {
    const tmp = tempDir('wg-http-nostdio-');
    const server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data') });
    try {
      let stdout = '';
      server.child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      server.child.stdin.end(`${initializeBody()}\n`);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(stdout).toBe('');
      expect(server.child.exitCode).toBeNull();
      expect((await rawRequest(server.url.replace(/\/mcp$/, '/healthz'))).status).toBe(200);
      const conn = await server.connect();
      expect((await conn.client.listTools()).tools.length).toBeGreaterThan(0);
      await conn.close();
    } finally {
      server.kill();
      tmp.cleanup();
    }
  }, 60_000);

  it('with --stdio too: the end of stdin closes only the stdio session; HTTP goes on', async () => {
    const tmp = tempDir('wg-http-stdio-');
    const raw = new RawServer({ dataDir: path.join(tmp.dir, 'data'), args: ['--http', '127.0.0.1:0', '--stdio'], env: { WORKGRAPH_LOG_LEVEL: 'info' } });
    try {
      await raw.initialize();
      const url = await waitFor('the start line', () => /serving on stdio and (http:\/\/\S+\/mcp)/.exec(raw.stderr)?.[1]);
      raw.child.stdin.end();
      await new Promise((r) => setTimeout(r, 500));
      expect(raw.child.exitCode).toBeNull();
      const r = await rawRequest(url, { method: 'POST', headers: MCP_POST_HEADERS, body: initializeBody() });
      expect(r.status).toBe(200);
      raw.child.kill('SIGTERM');
      expect(await raw.exited).toEqual({ code: 0, signal: null });
    } finally {
      raw.kill();
      tmp.cleanup();
    }
  });

  it('refuses to bind a non-loopback address without authentication, saying why', async () => {
    const tmp = tempDir('wg-http-bind-');
    try {
      const child = spawn(process.execPath, [CLI, 'serve', '--http', '0.0.0.0:0'], { env: serverEnv({ dataDir: tmp.dir }) });
      let err = '';
      child.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
      expect(code).toBe(2); // a usage error, as every refused setting is
      expect(err).toContain('--http: binding 0.0.0.0 (not a loopback address) requires authentication');
    } finally {
      tmp.cleanup();
    }
  });
});
