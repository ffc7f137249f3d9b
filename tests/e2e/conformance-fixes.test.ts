import * as path from 'node:path';
import { HttpServerProcess, MCP_POST_HEADERS, rawRequest } from './helpers/http-server';
import { MODERN_ENVELOPE, modernHeaders } from './helpers/modern-client';
import { RawServer, tempDir } from './helpers/server-process';

/**
 * What the official conformance suite (scripts/conformance.sh) found against the built server, each fixed and held
 * here without the suite (it needs Node 22 and a download): SEP-2164's `data.uri` on a resource that does not exist
 * (modern era), and SEP-1699's SSE `retry` field on a legacy POST stream's priming event.
 */
describe('conformance suite findings', () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: HttpServerProcess;
  beforeAll(async () => {
    tmp = tempDir('wg-conformance-');
    server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data') });
  });
  afterAll(() => {
    server?.kill();
    tmp?.cleanup();
  });

  const readUnknown = (uri: string) => ({ jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri, _meta: MODERN_ENVELOPE } });

  it('modern HTTP: resources/read of a resource that does not exist is -32602 naming the URI in data.uri', async () => {
    for (const uri of ['test://nonexistent-resource', 'workgraph://sessions/0123456789abcdef', 'workgraph://projects/nope/tasks']) {
      const r = await rawRequest(server.url, { method: 'POST', headers: modernHeaders('resources/read', uri), body: JSON.stringify(readUnknown(uri)) });
      const error = JSON.parse(r.body).error;
      expect([uri, error.code, error.data]).toEqual([uri, -32602, { uri }]);
      expect(error.message).toMatch(/unknown resource|not_found/);
    }
  });

  it('modern stdio: the same error with data.uri; a legacy client gets the error it always got', async () => {
    const modern = new RawServer({ dataDir: path.join(tmp.dir, 'data-stdio') });
    const legacy = new RawServer({ dataDir: path.join(tmp.dir, 'data-stdio') });
    try {
      modern.send(readUnknown('test://missing'));
      expect((await modern.response(7)).error).toMatchObject({ code: -32602, data: { uri: 'test://missing' } });
      await legacy.initialize();
      legacy.send({ jsonrpc: '2.0', id: 8, method: 'resources/read', params: { uri: 'test://missing' } });
      const error = (await legacy.response(8)).error as Record<string, unknown>;
      expect(error.code).toBe(-32602);
      expect(error).not.toHaveProperty('data');
    } finally {
      modern.kill();
      legacy.kill();
    }
  });

  it('legacy HTTP: a POST answered as an SSE stream opens with a priming event carrying retry', async () => {
    const init = await rawRequest(server.url, {
      method: 'POST',
      headers: MCP_POST_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    const session = init.headers['mcp-session-id'] as string;
    expect(session).toBeTruthy();
    const headers = { ...MCP_POST_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await rawRequest(server.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    const r = await rawRequest(server.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    expect(r.headers['content-type']).toContain('text/event-stream');
    const firstEvent = r.body.split(/\r?\n\r?\n/)[0]!;
    expect(firstEvent).toMatch(/^id: \S+/m);
    expect(firstEvent).toMatch(/^retry: 1000$/m);
    expect(r.body).toContain('"tools"');
  });
});
