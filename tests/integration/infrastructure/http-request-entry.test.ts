import * as net from 'node:net';
import type { AddressInfo } from 'node:net';
import type * as http from 'node:http';
import type { Logger } from '../../../src/kernel/logger';
import { createHttpServer, type RequestHandler, type HttpTimeouts } from '../../../src/kernel/http/request-entry';

/**
 * The one request entry of workgraph's HTTP servers, over real sockets: whatever a handler does — throw, reject,
 * throw after its answer began, decline — the client gets an answer (or a closed connection) and the server goes
 * on; a client that stalls is cut by the timeouts while a long streamed answer is not; nothing logged carries a
 * query string.
 */

interface Entry {
  level: string;
  msg: string;
  fields: Record<string, unknown>;
}

function recordingLogger(entries: Entry[]): Logger {
  const at =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      void entries.push({ level, msg, fields });
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), child: () => logger };
  return logger;
}

async function serve(handle: RequestHandler, timeouts?: Partial<HttpTimeouts>): Promise<{ server: http.Server; port: number; log: Entry[] }> {
  const log: Entry[] = [];
  const server = createHttpServer({ handle, logger: recordingLogger(log), ...(timeouts ? { timeouts } : {}) });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, port: (server.address() as AddressInfo).port, log };
}

async function stop(server: http.Server): Promise<void> {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
}

/** Writes `bytes` on a fresh connection; resolves with what came back once the server closed it (or `waitMs` passed). */
function exchange(port: number, bytes: string, waitMs = 10_000): Promise<{ text: string; closedBy: 'server' | 'test'; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => {
      if (bytes) socket.write(bytes);
    });
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closedBy: 'test', ms: Date.now() - started });
    }, waitMs);
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closedBy: 'server', ms: Date.now() - started });
    });
    socket.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? undefined : reject(e)));
  });
}

const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}\r\n`;
const status = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);

describe('every request is answered', () => {
  let server: http.Server;
  let port: number;
  let log: Entry[];

  beforeAll(async () => {
    ({ server, port, log } = await serve((req, res, target) => {
      if (target.path === '/ok') {
        res.end('fine');
        return;
      }
      if (target.path === '/throws') throw new Error('boom in handler for /throws?token=SECRET-IN-MESSAGE');
      if (target.path === '/rejects') return Promise.reject(new Error('async boom'));
      if (target.path === '/throws-after-answer-began') {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write('partial');
        throw new Error('late boom');
      }
      if (target.path === '/declines-later') return Promise.resolve(false);
      return false;
    }));
  });
  afterAll(() => stop(server));

  it('a handler that throws: 500, one error line naming method and path without the query, and the server goes on', async () => {
    log.length = 0;
    const r = await exchange(port, get('/throws?token=SECRET-IN-URL'));
    expect(status(r.text)).toBe(500);
    expect(r.text).toContain('internal_error');
    expect(r.closedBy).toBe('server');
    const errors = log.filter((e) => e.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ msg: 'http request failed', fields: { method: 'GET', path: '/throws?<redacted>' } });
    expect(JSON.stringify(log)).not.toContain('SECRET');
    expect(JSON.stringify(log)).toContain('boom in handler');
    expect(status((await exchange(port, get('/ok', 'Connection: close\r\n'))).text)).toBe(200);
  });

  it('a handler whose promise rejects: 500 and one log line', async () => {
    log.length = 0;
    expect(status((await exchange(port, get('/rejects', 'Connection: close\r\n'))).text)).toBe(500);
    expect(log.filter((e) => e.level === 'error')).toHaveLength(1);
  });

  it('a handler that throws after its answer began: the connection is closed, not held', async () => {
    const r = await exchange(port, get('/throws-after-answer-began'));
    // Whatever of the begun answer was flushed, the client learns it is over: the connection closes.
    expect(r.closedBy).toBe('server');
    expect(r.text).not.toContain('internal_error');
  });

  it('a request no handler takes (now or once its promise settles) is 404', async () => {
    expect(status((await exchange(port, get('/nothing-here', 'Connection: close\r\n'))).text)).toBe(404);
    expect(status((await exchange(port, get('/declines-later', 'Connection: close\r\n'))).text)).toBe(404);
  });

  it('a malformed target is 400 and the connection closed, before any handler runs', async () => {
    for (const target of ['/%', '//', '/a/../b', '/%2e%2e/b', '/%00', 'http://evil.example/ok', '*']) {
      const r = await exchange(port, get(target));
      expect([target, status(r.text)]).toEqual([target, 400]);
      expect(r.closedBy).toBe('server');
    }
  });
});

describe('timeouts close stalled sockets, not streamed answers', () => {
  const TIMEOUTS = { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 300 };
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    ({ server, port } = await serve(
      (req, res, target) => {
        if (target.path === '/stream') {
          // Longer than every timeout: a chunk every 200 ms for 2 s.
          res.writeHead(200, { 'Content-Type': 'text/event-stream' });
          let n = 0;
          const timer = setInterval(() => {
            res.write(`data: ${++n}\n\n`);
            if (n === 10) {
              clearInterval(timer);
              res.end();
            }
          }, 200);
          res.on('close', () => clearInterval(timer));
          return;
        }
        if (target.path === '/upload') {
          req.resume();
          req.on('end', () => res.end('got it'));
          return;
        }
        res.end('ok');
      },
      TIMEOUTS,
    ));
  });
  afterAll(() => stop(server));

  it('a connection that sends nothing is closed', async () => {
    const r = await exchange(port, '', 15_000);
    expect(r.closedBy).toBe('server');
  }, 30_000);

  it('headers that never end: 408 and closed', async () => {
    const r = await exchange(port, 'GET /ok HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ', 15_000);
    expect(r.closedBy).toBe('server');
    expect(status(r.text)).toBe(408);
  }, 30_000);

  it('a body that never ends: 408 and closed', async () => {
    const r = await exchange(port, 'POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\nabc', 15_000);
    expect(r.closedBy).toBe('server');
    expect(status(r.text)).toBe(408);
  }, 30_000);

  it('an idle kept-alive connection is closed after its answer', async () => {
    const r = await exchange(port, get('/ok'), 15_000);
    expect(status(r.text)).toBe(200);
    expect(r.closedBy).toBe('server');
  }, 30_000);

  it('a streamed answer longer than every timeout is delivered whole', async () => {
    const r = await exchange(port, get('/stream', 'Connection: close\r\n'), 15_000);
    expect(status(r.text)).toBe(200);
    expect(r.text).toContain('data: 10\n\n');
    expect(r.ms).toBeGreaterThan(TIMEOUTS.requestTimeoutMs * 2);
  }, 30_000);
});
