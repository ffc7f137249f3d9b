import * as http from 'node:http';
import * as path from 'node:path';
import { HttpServerProcess, MCP_POST_HEADERS, rawRequest, waitFor } from './helpers/http-server';
import { tempDir } from './helpers/server-process';

/**
 * Resumable SSE streams on the built server, in plain HTTP (the SDK client resumes by itself, which would hide what
 * is checked here): a client whose standalone GET stream broke reconnects with `Last-Event-ID` and gets the server
 * notifications sent while it was away, and only those.
 */
const WORKFLOWS = path.resolve(__dirname, '../fixtures/session-workflows');
const PROTOCOL = '2025-11-25';

interface SseEvent {
  id?: string;
  data: string;
}

function parseSse(text: string): SseEvent[] {
  return text
    .split(/\n\n/)
    .map((block) => {
      const id = /^id: ?(.*)$/m.exec(block)?.[1];
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.replace(/^data: ?/, ''))
        .join('\n');
      return { ...(id !== undefined ? { id } : {}), data };
    })
    .filter((e) => e.data.trim() !== '');
}

/** An open GET stream whose events are collected as they arrive. */
function openStream(url: string, headers: Record<string, string>): Promise<{ status: number; events: SseEvent[]; close: () => void }> {
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = [];
    let buffer = '';
    const req = http.request(url, { method: 'GET', headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buffer += d;
        const end = buffer.lastIndexOf('\n\n');
        if (end < 0) return;
        events.push(...parseSse(buffer.slice(0, end + 2)));
        buffer = buffer.slice(end + 2);
      });
      res.on('error', () => undefined);
      resolve({ status: res.statusCode ?? 0, events, close: () => req.destroy() });
    });
    req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
    req.end();
  });
}

describe('streamable HTTP: resumable streams (built server, plain HTTP)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let server: HttpServerProcess;
  beforeAll(async () => {
    tmp = tempDir('wg-http-resume-');
    server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data'), args: ['--workflows', WORKFLOWS] });
  }, 60_000);
  afterAll(() => {
    server?.kill();
    tmp?.cleanup();
  });

  it('a broken GET stream reconnects with Last-Event-ID and gets the notifications it missed', async () => {
    const init = await rawRequest(server.url, {
      method: 'POST',
      headers: MCP_POST_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    expect(init.status).toBe(200);
    const session = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': PROTOCOL };
    let nextId = 2;
    const rpc = async (method: string, params: Record<string, unknown>): Promise<any> => {
      const id = nextId++;
      const r = await rawRequest(server.url, { method: 'POST', headers: { ...MCP_POST_HEADERS, ...session }, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) });
      expect(r.status).toBe(200);
      const answer = parseSse(r.body).map((e) => JSON.parse(e.data)).find((m) => m.id === id);
      if (answer.error) throw new Error(JSON.stringify(answer.error));
      return answer.result;
    };
    const notified = await rawRequest(server.url, { method: 'POST', headers: { ...MCP_POST_HEADERS, ...session }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
    expect(notified.status).toBe(202);

    const start = (await rpc('tools/call', { name: 'workflow_start', arguments: { workflowId: 'session-demo', context: { files: ['a', 'b', 'c'] } } })).structuredContent;
    const uri = `workgraph://sessions/${start.sessionId}`;
    await rpc('resources/subscribe', { uri });
    const updates = (events: SseEvent[]) => events.filter((e) => JSON.parse(e.data).method === 'notifications/resources/updated');

    // The first change arrives on the open stream with an event id.
    const first = await openStream(server.url, session);
    expect(first.status).toBe(200);
    let token = (await rpc('tools/call', { name: 'workflow_continue', arguments: { continueToken: start.continueToken, output: { notesMarkdown: 'planned' } } })).structuredContent.continueToken;
    await waitFor('the first notification', () => updates(first.events).length === 1);
    const lastSeen = updates(first.events)[0].id!;
    expect(lastSeen).toBeTruthy();

    // The stream breaks; two changes happen while the client is away.
    first.close();
    for (const notes of ['edited a', 'edited b']) {
      token = (await rpc('tools/call', { name: 'workflow_continue', arguments: { continueToken: token, output: { notesMarkdown: notes } } })).structuredContent.continueToken;
      await new Promise((r) => setTimeout(r, 300));
    }

    // Reconnecting with Last-Event-ID replays exactly what was missed (the server may need a moment to see the break).
    const again = await waitFor('a reconnect the server accepts', async () => {
      const s = await openStream(server.url, { ...session, 'last-event-id': lastSeen });
      if (s.status === 200) return s;
      s.close();
      return undefined;
    });
    try {
      await waitFor('the missed notifications', () => updates(again.events).length >= 2);
      await new Promise((r) => setTimeout(r, 300));
      const missed = updates(again.events);
      expect(missed).toHaveLength(2);
      expect(missed.map((e) => JSON.parse(e.data).params.uri)).toEqual([uri, uri]);
      expect(missed.map((e) => e.id)).not.toContain(lastSeen);
      // And the reconnected stream is live: a later change arrives on it.
      await rpc('tools/call', { name: 'workflow_continue', arguments: { continueToken: token, output: { notesMarkdown: 'edited c' } } });
      await waitFor('a live notification after the replay', () => updates(again.events).length === 3);
    } finally {
      again.close();
    }
  }, 120_000);
});
