import * as fs from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import * as path from 'node:path';
import type { HttpTransportServer } from '../../../src/server/http/http-transport-server';
import { startHttpTransport } from '../../../src/server/http/start-http-transport';
import { startSharedCore, type SharedCore } from './shared-core';

/**
 * The HTTP transport with tiny timeouts (header 200 ms, request 400 ms, keep-alive 200 ms): a connection that sends
 * nothing is closed, while a session's GET /mcp SSE stream stays open many times longer and still carries
 * notifications/resources/updated when a tool call changes the subscribed project.
 */
describe('HTTP timeouts on the MCP transport', () => {
  let shared: SharedCore;
  let server: HttpTransportServer;
  let origin: string;

  beforeAll(async () => {
    shared = await startSharedCore('wg-http-timeouts-', ['proj']);
    server = await startHttpTransport(
      shared.host,
      {
        listen: { host: '127.0.0.1', port: 0 },
        stdio: false,
        tokens: [],
        allowedHosts: [],
        allowedOrigins: [],
        sessionIdleTimeoutMs: 60_000,
        maxSessions: 10,
        timeouts: { headersTimeoutMs: 200, requestTimeoutMs: 400, keepAliveTimeoutMs: 200 },
      },
      shared.logger,
    );
    origin = new URL(server.url).origin;
  });
  afterAll(async () => {
    await server.close();
    await shared.stop();
  });

  const post = (body: unknown, session?: string) =>
    new Promise<{ status: number; session?: string; text: string }>((resolve, reject) => {
      const req = http.request(
        `${origin}/mcp`,
        {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
            ...(session ? { 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-06-18' } : {}),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, session: res.headers['mcp-session-id'] as string | undefined, text }));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify(body));
    });

  it('closes a connection that sends nothing', async () => {
    const closed = await new Promise<boolean>((resolve) => {
      const s = net.connect(Number(new URL(origin).port), '127.0.0.1');
      const timer = setTimeout(() => {
        s.destroy();
        resolve(false);
      }, 10_000);
      s.on('close', () => {
        clearTimeout(timer);
        resolve(true);
      });
      s.on('error', () => undefined);
      s.resume(); // a socket that never reads never sees the server's FIN
    });
    expect(closed).toBe(true);
  });

  it('keeps a session SSE stream open past every timeout, and it still delivers', async () => {
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    expect(init.status).toBe(200);
    const session = init.session!;
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);

    let events = '';
    let ended = false;
    const stream = http.get(`${origin}/mcp`, { headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-06-18' } }, (res) => {
      expect(res.statusCode).toBe(200);
      res.on('data', (d: Buffer) => (events += d.toString()));
      res.on('close', () => (ended = true));
    });
    stream.on('error', () => undefined);
    try {
      // Five times the request timeout, with nothing on the stream.
      await new Promise((r) => setTimeout(r, 2_000));
      expect(ended).toBe(false);

      const uri = 'workgraph://projects/late/tasks';
      expect((await post({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri } }, session)).status).toBe(200);
      const root = path.join(shared.tmp, 'proj');
      fs.mkdirSync(root, { recursive: true });
      const call = await post(
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'init_project_graph', arguments: { projectName: 'late', projectRoot: root, nodes: [{ id: 'a', title: 'A' }] } } },
        session,
      );
      expect(call.text).not.toContain('"isError":true');
      const end = Date.now() + 20_000;
      while (!events.includes('notifications/resources/updated') && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      expect(events).toContain(`"uri":"${uri}"`);
      expect(ended).toBe(false);
    } finally {
      stream.destroy();
    }
  }, 60_000);
});
