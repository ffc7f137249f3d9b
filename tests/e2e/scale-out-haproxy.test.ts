import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';
import {
  Instances,
  LegacyCaller,
  ModernCaller,
  SESSION_WORKFLOWS,
  expectNothingLost,
  freePort,
  loadProject,
  mixedTraffic,
  type Caller,
} from './helpers/scale-out';
import { LegacySubscriber, ModernSubscriber, expectEveryLaterChangeHeard, type Subscriber } from './helpers/scale-out-subscribers';
import { tempDir } from './helpers/server-process';

/**
 * docs/scaling.md's HAProxy configuration, exactly as the doc writes it (read from its ```haproxy block, ports
 * replaced), under Debian's real `haproxy`: three instances on one embedded PostgreSQL behind it. A legacy session
 * keeps its instance through the stick table; modern and legacy clients with one instance SIGKILLed mid-traffic: no
 * acknowledged write lost, no task started twice, every subscription hears every later change. Skipped, saying so,
 * where haproxy is not installed (`apt-get install -y haproxy`).
 */
const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy'].find((p) => fs.existsSync(p)) ?? (spawnSync('sh', ['-c', 'command -v haproxy']).stdout?.toString().trim() || undefined);
const DOC = path.resolve(__dirname, '../../docs/scaling.md');
const SECONDS = 5;

if (!HAPROXY) console.warn('scale-out-haproxy: haproxy is not installed (Debian: apt-get install -y haproxy); the test of docs/scaling.md\'s HAProxy configuration is skipped');

jest.setTimeout(240_000);

/** The doc's configuration with this test's ports in place of its 8080 (frontend) and 8081-8083 (instances). */
function haproxyConfig(doc: string, frontend: number, backends: number[]): string {
  const block = /```haproxy\n([\s\S]*?)```/.exec(doc)?.[1];
  if (!block) throw new Error('docs/scaling.md has no ```haproxy block');
  let config = block.replace('127.0.0.1:8080', `127.0.0.1:${frontend}`);
  backends.forEach((port, i) => {
    const from = `127.0.0.1:${8081 + i}`;
    if (!config.includes(from)) throw new Error(`docs/scaling.md's HAProxy block has no server at ${from}`);
    config = config.replace(from, `127.0.0.1:${port}`);
  });
  return config;
}

(HAPROXY ? describe : describe.skip)("docs/scaling.md's HAProxy configuration under real HAProxy", () => {
  let pg: TestPostgres;
  let tmp: ReturnType<typeof tempDir>;
  let instances: Instances;
  let haproxy: ChildProcess;
  let url: string;
  let haproxyLog = '';

  beforeAll(async () => {
    tmp = tempDir('wg-haproxy-');
    pg = await startTestPostgres();
    const databaseUrl = await pg.createTestDatabase();
    instances = await Instances.start(3, (i) => ({
      dataDir: path.join(tmp.dir, `data-${i}`),
      args: ['--database-url', databaseUrl, '--workflows', SESSION_WORKFLOWS, '--allow-root', tmp.dir],
    }));
    const port = await freePort();
    const config = path.join(tmp.dir, 'haproxy.cfg');
    fs.writeFileSync(config, haproxyConfig(fs.readFileSync(DOC, 'utf8'), port, instances.ports));
    const check = spawnSync(HAPROXY!, ['-c', '-f', config]);
    expect([check.status, check.stderr.toString()]).toEqual([0, expect.any(String)]);
    haproxy = spawn(HAPROXY!, ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    haproxy.stdout!.on('data', (d: Buffer) => (haproxyLog += d.toString()));
    haproxy.stderr!.on('data', (d: Buffer) => (haproxyLog += d.toString()));
    url = `http://127.0.0.1:${port}/mcp`;
    const probe = await ModernCaller.open(url);
    await probe.call('workflow_list', {});
    await probe.close();
  });
  afterAll(async () => {
    haproxy?.kill('SIGKILL');
    instances?.killAll();
    await pg?.stop();
    tmp?.cleanup();
  });

  it('a legacy session keeps its instance through the stick table (round robin alone would answer it 404 elsewhere)', async () => {
    const legacy = new LegacyCaller(url);
    try {
      const root = path.join(tmp.dir, 'p-sticky');
      fs.mkdirSync(root);
      await legacy.call('init_project_graph', { projectName: 'sticky', projectRoot: root, nodes: [{ id: 'a', title: 'A', depends_on: [] }] });
      const conn = (legacy as unknown as { conn: { transport: { sessionId?: string } } }).conn;
      const session = conn.transport.sessionId;
      expect(session).toBeTruthy();
      for (let i = 0; i < 9; i++) expect((await legacy.call('get_ready_tasks', { project: 'sticky' })).isError).toBeFalsy();
      // Still the session it opened: no call needed a new one.
      expect((legacy as unknown as { conn: { transport: { sessionId?: string } } }).conn.transport.sessionId).toBe(session);
    } finally {
      await legacy.close();
    }
  });

  it('modern and legacy clients, one instance SIGKILLed and restarted: nothing acknowledged lost, no task started twice, every subscription hears every later change', async () => {
    const root = path.join(tmp.dir, 'p-load');
    const watchRoot = path.join(tmp.dir, 'p-watch');
    fs.mkdirSync(root);
    fs.mkdirSync(watchRoot);
    const setup = await ModernCaller.open(url);
    await setup.call('init_project_graph', loadProject(root, 4));
    await setup.call('init_project_graph', { projectName: 'watch', projectRoot: watchRoot, nodes: [0, 1, 2].map((i) => ({ id: `w${i}`, title: `W${i}`, depends_on: [] })) });
    const uris = ['workgraph://projects/watch/tasks'];
    const subscribers: Subscriber[] = [new ModernSubscriber(url, uris), new ModernSubscriber(url, uris), new LegacySubscriber(url, uris), new LegacySubscriber(url, uris)];
    const callers: Caller[] = [...(await Promise.all([0, 1, 2].map(() => ModernCaller.open(url)))), new LegacyCaller(url)];
    try {
      for (const s of subscribers) await s.ready();
      const killer = (async () => {
        await new Promise((r) => setTimeout(r, (SECONDS * 1000) / 3));
        await instances.killAndRestart(1);
      })();
      const traffic = await mixedTraffic(callers, SECONDS);
      await killer;
      await expectNothingLost(setup, traffic);
      expect(traffic.thoughts.some((id) => id.includes('-legacy-'))).toBe(true);
      await expectEveryLaterChangeHeard(subscribers, 3, async (i) => {
        await setup.call('start_task', { project: 'watch', nodeId: `w${i}` });
        return uris[0]!;
      });
    } finally {
      await Promise.all(callers.map((c) => c.close().catch(() => undefined)));
      await Promise.all(subscribers.map((s) => s.stop()));
      await setup.close();
      if (haproxy.exitCode !== null) throw new Error(`haproxy exited: ${haproxyLog}`);
    }
  });
});
