import * as fs from 'node:fs';
import * as path from 'node:path';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres';
import { waitFor } from './helpers/http-server';
import { connectModernHttp } from './helpers/modern-client';
import {
  Instances,
  LegacyCaller,
  ModernCaller,
  SESSION_WORKFLOWS,
  expectNothingLost,
  loadProject,
  mixedTraffic,
  roundRobinProxy,
  type Caller,
} from './helpers/scale-out';
import { LegacySubscriber, ModernSubscriber, expectEveryLaterChangeHeard, type Subscriber } from './helpers/scale-out-subscribers';
import { tempDir } from './helpers/server-process';

/**
 * Scale-out (docs/scaling.md): three `serve --http` instances on one PostgreSQL database behind a round-robin proxy
 * (a few lines of node:http; its one affinity: a legacy session's requests go to the instance that opened it). Modern
 * clients (SDK v2) need none: every request is answered by whichever instance gets it, and a subscription open on one
 * instance hears a change made through another. Legacy clients (SDK v1, sessions) beside them. One instance SIGKILLed
 * mid-traffic and started again: clients carry on by retrying a failed call (a legacy one in a new session), no
 * acknowledged write is lost, no task is started twice, and every subscription — the ones that stayed open and the ones
 * re-opened after their instance died — hears every later change. CI-sized by default; `npm run stress` sets
 * SCALE_OUT_SECONDS=30, SCALE_OUT_CLIENTS=16 and SCALE_OUT_LEGACY=4.
 */
const INSTANCES = 3;
const SECONDS = Number(process.env.SCALE_OUT_SECONDS || 6);
const CLIENTS = Number(process.env.SCALE_OUT_CLIENTS || 4);
const LEGACY = Number(process.env.SCALE_OUT_LEGACY || 1);

jest.setTimeout(180_000 + SECONDS * 3000);

describe(`${INSTANCES} instances on one PostgreSQL behind a round-robin proxy`, () => {
  let pg: TestPostgres;
  let tmp: ReturnType<typeof tempDir>;
  let instances: Instances;
  let proxy: Awaited<ReturnType<typeof roundRobinProxy>>;

  beforeAll(async () => {
    tmp = tempDir('wg-scale-');
    pg = await startTestPostgres();
    const databaseUrl = await pg.createTestDatabase();
    instances = await Instances.start(INSTANCES, (i) => ({
      dataDir: path.join(tmp.dir, `data-${i}`),
      args: ['--database-url', databaseUrl, '--workflows', SESSION_WORKFLOWS, '--allow-root', tmp.dir],
    }));
    proxy = await roundRobinProxy(instances.urls);
  });
  afterAll(async () => {
    proxy?.close();
    instances?.killAll();
    await pg?.stop();
    tmp?.cleanup();
  });

  it('any instance answers; a listener on one hears a task transition made through another', async () => {
    const root = path.join(tmp.dir, 'p-listen');
    fs.mkdirSync(root);
    const writer = await connectModernHttp(proxy.url);
    const watcher = await connectModernHttp(proxy.url);
    try {
      await writer.client.callTool({ name: 'init_project_graph', arguments: { projectName: 'listen', projectRoot: root, nodes: [{ id: 'a', title: 'A', depends_on: [] }] } });
      const updated: string[] = [];
      watcher.client.setNotificationHandler('notifications/resources/updated', async (n: { params: { uri: string } }) => void updated.push(n.params.uri));
      const uri = 'workgraph://projects/listen/tasks';
      const sub = await watcher.client.listen({ resourceSubscriptions: [uri] });
      // Several calls, each on the next instance: whichever holds the listen stream, the others make changes.
      for (let i = 0; i < INSTANCES; i++) {
        const r = await writer.client.callTool({ name: 'get_ready_tasks', arguments: { project: 'listen' } });
        expect(r.isError).toBeFalsy();
      }
      await writer.client.callTool({ name: 'start_task', arguments: { project: 'listen', nodeId: 'a' } });
      await waitFor('resources/updated heard through another instance', () => updated.includes(uri));
      await sub.close();
      expect(proxy.served.filter((n) => n > 0).length).toBe(INSTANCES);
    } finally {
      await writer.close();
      await watcher.close();
    }
  });

  it(`${CLIENTS} modern and ${LEGACY} legacy clients for ${SECONDS} s, one instance SIGKILLed and restarted: nothing acknowledged lost, no task started twice, every subscription hears every later change`, async () => {
    const root = path.join(tmp.dir, 'p-load');
    fs.mkdirSync(root);
    const watchRoot = path.join(tmp.dir, 'p-watch');
    fs.mkdirSync(watchRoot);
    const setup = await ModernCaller.open(proxy.url);
    await setup.call('init_project_graph', loadProject(root, CLIENTS + LEGACY));
    await setup.call('init_project_graph', { projectName: 'watch', projectRoot: watchRoot, nodes: Array.from({ length: 8 }, (_, i) => ({ id: `w${i}`, title: `W${i}`, depends_on: [] })) });
    await setup.call('add_nodes', { projectContext: 'watch', nodes: [{ id: 'k0', thought: 'watched', role: 'actor' }] });
    const uris = ['workgraph://projects/watch/tasks', 'workgraph://knowledge/watch'];
    // Subscribers through the proxy (on whichever instance), and one of each era on the instance that will be killed.
    const subscribers: Subscriber[] = [
      new ModernSubscriber(proxy.url, uris),
      new ModernSubscriber(proxy.url, uris),
      ...Array.from({ length: LEGACY }, () => new LegacySubscriber(proxy.url, uris)),
    ];
    const onKilled = [new ModernSubscriber(instances.urls[1]!, uris), new LegacySubscriber(instances.urls[1]!, uris)];
    subscribers.push(...onKilled);
    const callers: Caller[] = [
      ...(await Promise.all(Array.from({ length: CLIENTS }, () => ModernCaller.open(proxy.url)))),
      ...Array.from({ length: LEGACY }, () => new LegacyCaller(proxy.url)),
    ];
    try {
      for (const s of subscribers) await s.ready();
      const killer = (async () => {
        await new Promise((r) => setTimeout(r, (SECONDS * 1000) / 3));
        await instances.killAndRestart(1);
      })();
      const traffic = await mixedTraffic(callers, SECONDS);
      await killer;
      await expectNothingLost(setup, traffic);
      expect(traffic.thoughts.filter((id) => id.includes('-legacy-')).length).toBeGreaterThan(0);
      expect(traffic.thoughts.length).toBeGreaterThan(CLIENTS + LEGACY);

      // The subscriptions on the killed instance were re-opened (by retry, once it was back); every subscription
      // hears each change made from now on, tasks and knowledge alike.
      let w = 0;
      await expectEveryLaterChangeHeard(subscribers, 4, async (i) => {
        if (i % 2 === 0) {
          await setup.call('start_task', { project: 'watch', nodeId: `w${w++}` });
          return uris[0]!;
        }
        await setup.call('add_nodes', { projectContext: 'watch', nodes: [{ id: `k${i}`, thought: `later change ${i}`, role: 'actor' }] });
        return uris[1]!;
      });
      for (const s of onKilled) expect([s.era, s.reopened >= 1]).toEqual([s.era, true]);
    } finally {
      await Promise.all(callers.map((c) => c.close().catch(() => undefined)));
      await Promise.all(subscribers.map((s) => s.stop()));
      await setup.close();
    }
  });
});
