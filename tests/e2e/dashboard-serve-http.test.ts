/**
 * `workgraph serve --http … --dashboard`: the dashboard mounted at /dashboard/ on the HTTP transport, under the same
 * bearer tokens as /mcp (or a printed token of its own when /mcp has none), behind the same Host/Origin checks; an
 * MCP client over HTTP changes a project while the page is open in a real browser. And `serve` without the flag loads
 * none of the dashboard.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HttpServerProcess, rawRequest, waitFor, type HttpConn } from './helpers/http-server';
import { tempDir } from './helpers/server-process';
import { call, SUM_TO_N } from './helpers/dashboard-seed';
import { launchBrowser, screenshotPath, type Browser } from '../helpers/browser';

jest.setTimeout(180_000);

const TOKENS = ['mcp-token-one-0123456789', 'mcp-token-two-abcdefghij'];

async function stop(server: HttpServerProcess | undefined): Promise<void> {
  if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return;
  server.child.kill('SIGTERM');
  const timer = setTimeout(() => server.kill(), 20_000);
  await server.exited;
  clearTimeout(timer);
}

describe('with the /mcp tokens', () => {
  let data: { dir: string; cleanup: () => void };
  let root: { dir: string; cleanup: () => void };
  let server: HttpServerProcess;
  let mcp: HttpConn;
  let browser: Browser | undefined;

  beforeAll(async () => {
    data = tempDir('wg-serve-dash-');
    root = tempDir('wg-serve-dash-root-');
    const tokenFile = path.join(data.dir, '..', `${path.basename(data.dir)}.tokens`);
    fs.writeFileSync(tokenFile, `# two clients\n${TOKENS.join('\n')}\n`);
    server = await HttpServerProcess.start({ dataDir: data.dir, args: ['--dashboard', '--auth-token-file', tokenFile, '--graphs', SUM_TO_N, '--allow-root', root.dir] });
    mcp = await server.connect({ token: TOKENS[0] });
    await call(mcp.client, 'init_project_graph', {
      projectName: 'Served App',
      projectRoot: root.dir,
      nodes: [
        { id: 'plan', title: 'Plan the release', depends_on: [], validation_command: 'true' },
        { id: 'ship', title: 'Ship it', depends_on: ['plan'], validation_command: 'true' },
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await mcp?.close().catch(() => undefined);
    await stop(server);
    data?.cleanup();
    root?.cleanup();
  });

  test('the start log names the dashboard URL without revealing a token', () => {
    expect(server.stderr).toMatch(/dashboard \(read-only\) at http:\/\/127\.0\.0\.1:\d+\/dashboard\/\?token=<one of the --auth-token-file tokens>/);
    for (const t of TOKENS) expect(server.stderr).not.toContain(t);
  });

  test('its API opens with any of the /mcp tokens and answers 401 otherwise; the page loads; Host is checked', async () => {
    const meta = (token?: string) => rawRequest(`${server.origin}/dashboard/api/meta`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    expect((await meta()).status).toBe(401);
    expect((await meta('not-a-token')).status).toBe(401);
    for (const t of TOKENS) {
      const r = await meta(t);
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body)).toMatchObject({ allowActions: false, dataDir: data.dir });
    }
    const overview = await rawRequest(`${server.origin}/dashboard/api/overview?token=${TOKENS[1]}`);
    expect(JSON.parse(overview.body).projects.map((p: { id: string }) => p.id)).toEqual(['served-app']);

    const redirect = await rawRequest(`${server.origin}/dashboard`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toBe('/dashboard/');
    const page = await rawRequest(`${server.origin}/dashboard/`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('<div id="root">');

    const rebound = await rawRequest(`${server.origin}/dashboard/api/meta`, { headers: { Host: 'evil.example', Authorization: `Bearer ${TOKENS[0]}` } });
    expect(rebound.status).toBe(421);
    const foreign = await rawRequest(`${server.origin}/dashboard/api/meta`, { headers: { Origin: 'https://evil.example', Authorization: `Bearer ${TOKENS[0]}` } });
    expect(foreign.status).toBe(403);
    // Read-only: an action is refused and changes nothing.
    const reset = await rawRequest(`${server.origin}/dashboard/api/projects/served-app/tasks/plan/reset`, { method: 'POST', headers: { Authorization: `Bearer ${TOKENS[0]}` } });
    expect(reset.status).toBe(403);
    expect(JSON.parse(reset.body).error.code).toBe('read_only');
    // /mcp still needs its token.
    expect((await rawRequest(`${server.origin}/mcp`, { method: 'POST', body: '{}' })).status).toBe(401);
  });

  test('in a real browser: the project DAG, turning COMPLETED live when the HTTP MCP client validates a task', async () => {
    browser = await launchBrowser();
    const page = await browser.context.newPage();
    await page.goto(`${server.origin}/dashboard/?token=${TOKENS[1]}#/tasks/served-app`);
    await page.locator('.task-node[data-task="plan"][data-status="READY"]').waitFor({ timeout: 30_000 });
    await page.locator('.task-node[data-task="ship"][data-status="PENDING"]').waitFor();
    await page.locator('[data-testid="live"]', { hasText: 'Live' }).waitFor({ timeout: 30_000 });

    await call(mcp.client, 'start_task', { project: 'Served App', nodeId: 'plan' });
    await call(mcp.client, 'validate_task_loop', { project: 'Served App', nodeId: 'plan' });
    await page.locator('.task-node[data-task="plan"][data-status="COMPLETED"]').waitFor({ timeout: 30_000 });
    await page.locator('.task-node[data-task="ship"][data-status="READY"]').waitFor({ timeout: 30_000 });
    await page.screenshot({ path: screenshotPath('dashboard-serve-http-dag') });

    // The graph tools are the server's own (loaded with --graphs).
    await page.goto(`${server.origin}/dashboard/?token=${TOKENS[1]}#/graphs/sum_to_n`);
    await page.locator('.graph-node[data-node="check_condition"]').waitFor({ timeout: 30_000 });
  });
});

describe('without /mcp tokens (loopback)', () => {
  test('the dashboard gets a random token of its own, printed with its URL; --allow-actions enables its actions', async () => {
    const data = tempDir('wg-serve-dash-open-');
    let server: HttpServerProcess | undefined;
    try {
      server = await HttpServerProcess.start({ dataDir: data.dir, args: ['--dashboard', '--allow-actions'] });
      const m = /dashboard \(actions enabled\) at (http:\/\/\S+\/dashboard\/\?token=([0-9a-f]{48}))/.exec(server.stderr);
      expect(m).not.toBeNull();
      const token = m![2];
      expect((await rawRequest(`${server.origin}/dashboard/api/meta`)).status).toBe(401);
      const meta = await rawRequest(`${server.origin}/dashboard/api/meta?token=${token}`);
      expect(meta.status).toBe(200);
      expect(JSON.parse(meta.body).allowActions).toBe(true);
      // A token-less /mcp stays open, as before.
      expect((await server.connect()).client.getServerVersion()?.name).toBe('workgraph');
    } finally {
      await stop(server);
      data.cleanup();
    }
  });

  test('--dashboard without --http is a usage error naming the flag', async () => {
    const { spawnSync } = await import('node:child_process');
    const { CLI } = await import('./helpers/server-process');
    const r = spawnSync(process.execPath, [CLI, 'serve', '--dashboard'], { encoding: 'utf8', input: '' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/--dashboard: the dashboard is mounted on the HTTP transport: give --http/);
  });
});

describe('cold start', () => {
  /** The compiled files `serve --http` required, written at exit by a preloaded script. */
  async function requiredFiles(extraArgs: string[]): Promise<string[]> {
    const data = tempDir('wg-serve-dash-cold-');
    const preload = path.join(data.dir, 'record-requires.js');
    const out = path.join(data.dir, 'required.json');
    fs.writeFileSync(preload, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache))));\n`);
    let server: HttpServerProcess | undefined;
    try {
      server = await HttpServerProcess.start({ dataDir: path.join(data.dir, 'data'), args: extraArgs, env: { NODE_OPTIONS: `--require ${preload}` } });
      const conn = await server.connect();
      await conn.client.listTools();
      await conn.close();
      await stop(server);
      await waitFor('the required-files list', () => fs.existsSync(out));
      return (JSON.parse(fs.readFileSync(out, 'utf8')) as string[]).map((f) => f.split(path.sep).join('/'));
    } finally {
      await stop(server);
      data.cleanup();
    }
  }

  test('serve --http without --dashboard requires none of the dashboard; with it, the dashboard is loaded', async () => {
    const without = await requiredFiles([]);
    expect(without.some((f) => f.endsWith('/dist/server/http/http-transport-server.js'))).toBe(true);
    expect(without.filter((f) => f.includes('/dist/dashboard/') || f.endsWith('/dashboard-mount.js'))).toEqual([]);
    const withDashboard = await requiredFiles(['--dashboard']);
    expect(withDashboard.some((f) => f.endsWith('/dist/dashboard/dashboard-app.js'))).toBe(true);
  });
});
