/**
 * Every HTTP request gets an answer (issue 20): a corpus of malformed request targets sent on raw sockets to the
 * built `workgraph dashboard` and to `serve --http --dashboard` (its /mcp and its /dashboard/ mount). Each answer's
 * status is checked, none is left waiting, neither process exits, no token reaches the log, and each still serves
 * normally afterwards (the dashboard's API, an MCP initialize). And 500 such requests held open by the client do not
 * keep the server's descriptors: under a 256-descriptor limit a normal initialize is still answered.
 */
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as path from 'node:path';
import { startDashboardProcess, type DashboardProcess } from './helpers/dashboard-process';
import { HttpServerProcess, MCP_POST_HEADERS, initializeBody, rawRequest } from './helpers/http-server';
import { tempDir } from './helpers/server-process';

jest.setTimeout(120_000);

const TOKEN = 'every-request-token-0123456789';

/** One request on its own connection; its status, or 0 when the server closed without answering, -1 if it never did. */
function send(port: number, head: string, waitMs = 10_000): Promise<number> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(head));
    let text = '';
    const done = (code: number) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(code);
    };
    const timer = setTimeout(() => done(-1), waitMs);
    socket.on('data', (d) => {
      text += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (m && text.includes('\r\n\r\n')) done(Number(m[1]));
    });
    socket.on('error', () => undefined);
    socket.on('close', () => done(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
  });
}

const request = (port: number, target: string, method = 'GET') => `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`;

/** Malformed targets under a prefix ('' for the standalone dashboard, '/dashboard' and '/mcp' for serve). */
function corpus(prefix: string): Array<[string, number]> {
  return [
    [`${prefix}/%`, 400],
    [`${prefix}/%zz`, 400],
    [`${prefix}/%ff`, 400],
    [`${prefix}/%C0%AE%C0%AE/x`, 400],
    [`${prefix}/%00`, 400],
    [`${prefix}/a%0d%0aSet-Cookie:%20x`, 400],
    [`${prefix}//`, 400],
    [`${prefix}//evil.example/x`, 400],
    [`${prefix}/..`, 400],
    [`${prefix}/../x`, 400],
    [`${prefix}/%2e%2e/x`, 400],
    [`${prefix}/%2E%2E`, 400],
    [`${prefix}/./x`, 400],
    [`${prefix}/api/../api/meta`, 400],
    [`${prefix}/a\\..\\x`, 400],
    [`${prefix}/a"b`, 400],
    [`${prefix}/${'a'.repeat(9_000)}`, 414],
    // Past Node's 16 KiB header bound: Node itself answers.
    [`${prefix}/${'a'.repeat(20_000)}`, 431],
  ];
}

const COMMON: Array<[string, number]> = [
  ['/%', 400],
  ['//', 400],
  ['/%00', 400],
  ['*', 400],
  ['http://127.0.0.1/', 400],
  ['http://evil.example/mcp', 400],
  [`/${'b'.repeat(9_000)}?token=${TOKEN}`, 414],
];

async function expectAnswers(port: number, cases: Array<[string, number]>, suffix = ''): Promise<void> {
  const got: Array<[string, number]> = [];
  for (const [target] of cases) got.push([target.slice(0, 60), await send(port, request(port, target + suffix))]);
  expect(got).toEqual(cases.map(([t, s]) => [t.slice(0, 60), s]));
}

describe('workgraph dashboard', () => {
  let data: ReturnType<typeof tempDir>;
  let dash: DashboardProcess;
  beforeAll(async () => {
    data = tempDir('wg-every-dash-');
    dash = await startDashboardProcess({ dataDir: data.dir, args: ['--auth-token-file', writeToken(data.dir), '--allow-actions'], env: { WORKGRAPH_LOG_LEVEL: 'debug' } });
  });
  afterAll(async () => {
    await dash?.stop();
    data?.cleanup();
  });

  it('answers every malformed target (400/414/431), paths outside it 404, and keeps serving', async () => {
    const port = Number(new URL(dash.origin).port);
    await expectAnswers(port, [...COMMON, ...corpus(''), ...corpus('/api')]);
    await expectAnswers(port, corpus('/api'), `?token=${TOKEN}`);
    expect(await send(port, request(port, `/api/nothing-here?token=${TOKEN}`))).toBe(404);
    expect(await send(port, request(port, '/no-such-file.js'))).toBe(404);
    expect(dash.child.exitCode).toBeNull();
    const meta = await fetch(`${dash.origin}/api/meta`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(meta.status).toBe(200);
    expect(dash.stderr()).not.toContain(TOKEN);
  });

  it('an action body over 1 MiB is answered 413, not a reset connection', async () => {
    const r = await rawRequest(`${dash.origin}/api/knowledge/p/restore`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ nodeIds: ['x'.repeat(2 * 1024 * 1024)] }),
    });
    expect(r.status).toBe(413);
    expect(JSON.parse(r.body).error.message).toContain('body: larger than 1048576 bytes');
  });
});

describe('serve --http --dashboard', () => {
  let data: ReturnType<typeof tempDir>;
  let server: HttpServerProcess;
  let port: number;
  beforeAll(async () => {
    data = tempDir('wg-every-serve-');
    server = await HttpServerProcess.start({ dataDir: path.join(data.dir, 'data'), args: ['--dashboard', '--auth-token-file', writeToken(data.dir)], env: { WORKGRAPH_LOG_LEVEL: 'debug' } });
    port = Number(new URL(server.origin).port);
  });
  afterAll(async () => {
    server?.kill();
    data?.cleanup();
  });

  it('answers every malformed target under /dashboard and /mcp, and outside them; a token never reaches the log', async () => {
    await expectAnswers(port, [...COMMON, ...corpus(''), ...corpus('/dashboard'), ...corpus('/mcp'), ...corpus('/dashboard/api')]);
    await expectAnswers(port, [...corpus('/dashboard'), ...corpus('/dashboard/api')], `?token=${TOKEN}`);
    const outside: Array<[string, number]> = [
      ['/mcp/', 404],
      ['/mcpx', 404],
      ['/nothing', 404],
      ['/dashboardx', 404],
      [`/dashboard/api/nothing?token=${TOKEN}`, 404],
      ['/dashboard/api/meta', 401],
      ['/dashboard', 302],
    ];
    await expectAnswers(port, outside);
    for (const method of ['POST', 'DELETE', 'PUT']) expect(await send(port, request(port, '/mcp/../mcp', method))).toBe(400);
    expect(server.child.exitCode).toBeNull();
    expect(server.stderr).toContain('http request refused');
    expect(server.stderr).not.toContain(TOKEN);
  });

  it('still serves a normal MCP initialize and the dashboard API', async () => {
    const conn = await server.connect({ token: TOKEN });
    const tools = await conn.client.listTools();
    expect(tools.tools.length).toBeGreaterThan(0);
    await conn.close();
    const meta = await rawRequest(`${server.origin}/dashboard/api/meta`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(meta.status).toBe(200);
  });

  it('the protected-resource metadata sits behind the Host check, like /mcp', async () => {
    const url = `${server.origin}/.well-known/oauth-protected-resource/mcp`;
    const evil = await rawRequest(url, { headers: { Host: 'evil.example' } });
    expect(evil.status).toBe(421);
    expect(evil.body).not.toContain('evil.example/mcp');
    const own = await rawRequest(url);
    expect(own.status).toBe(200);
    expect(JSON.parse(own.body).resource).toBe(server.url);
  });
});

describe('bad requests do not hold descriptors', () => {
  const LIMIT = 256;
  const BAD = 500;
  let data: ReturnType<typeof tempDir>;
  let server: HttpServerProcess;
  beforeAll(async () => {
    data = tempDir('wg-every-fds-');
    server = await HttpServerProcess.start({ dataDir: path.join(data.dir, 'data'), args: ['--dashboard'], wrap: ['prlimit', `--nofile=${LIMIT}:${LIMIT}`] });
  });
  afterAll(async () => {
    server?.kill();
    data?.cleanup();
  });

  it(`${BAD} bad requests the client never closes are each answered and closed; then an initialize is answered under a ${LIMIT}-descriptor limit`, async () => {
    const port = Number(new URL(server.origin).port);
    const targets = ['/dashboard/../x', '/dashboard/%2e%2e/x', '/dashboard/..', '/%', '//'];
    const sockets: net.Socket[] = [];
    const lines: string[] = [];
    try {
      // In waves well under the limit, each socket kept open by this side (as a hostile client would).
      for (let wave = 0; wave < BAD / 100; wave++) {
        const waveAnswers: Array<Promise<string>> = [];
        for (let i = 0; i < 100; i++) {
          const target = targets[(wave * 100 + i) % targets.length];
          const socket = net.connect(port, '127.0.0.1');
          sockets.push(socket);
          socket.on('error', () => undefined);
          waveAnswers.push(
            new Promise((resolve) => {
              let text = '';
              const timer = setTimeout(() => resolve(`no answer: ${text.slice(0, 20)}`), 20_000);
              socket.on('data', (d) => (text += d.toString('latin1')));
              // The server closes its side after answering (Connection: close).
              socket.on('end', () => {
                clearTimeout(timer);
                resolve(text.split('\r\n')[0]);
              });
            }),
          );
          socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
        }
        lines.push(...(await Promise.all(waveAnswers)));
      }
      expect(lines).toHaveLength(BAD);
      expect(lines.filter((l) => l !== 'HTTP/1.1 400 Bad Request')).toEqual([]);
      const fdDir = `/proc/${server.child.pid}/fd`;
      if (fs.existsSync(fdDir)) expect(fs.readdirSync(fdDir).length).toBeLessThan(100);
      // Every bad socket still open on this side: a normal initialize gets its answer.
      const init = await rawRequest(server.url, { method: 'POST', headers: MCP_POST_HEADERS, body: initializeBody() });
      expect(init.status).toBe(200);
    } finally {
      for (const s of sockets) s.destroy();
    }
  });
});

function writeToken(dir: string): string {
  const file = path.join(dir, 'tokens');
  fs.writeFileSync(file, `${TOKEN}\n`);
  return file;
}
