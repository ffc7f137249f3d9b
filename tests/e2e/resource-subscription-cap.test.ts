/**
 * Resource subscriptions are bounded per client session (issue 20: one client subscribing to 20,000 absent resources
 * slowed every other client 60× and doubled the RSS): the built server grants 1,000 by default, refuses the 1,001st
 * with `resource_limit` (nothing added), and the subscriptions it holds still work — another process's change to one
 * of them is announced beside the 999 others. `--max-subscriptions` moves the bound.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { McpError, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from './helpers/server-process';

jest.setTimeout(180_000);

const absentSession = (i: number) => `workgraph://sessions/${i.toString(16).padStart(16, '0')}`;

async function refusal(p: Promise<unknown>): Promise<McpError> {
  try {
    await p;
  } catch (e) {
    return e as McpError;
  }
  throw new Error('expected the subscription to be refused');
}

describe('resources/subscribe per client session', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir('wg-subcap-')));
  afterEach(() => tmp.cleanup());

  it('1,000 subscriptions by default; the 1,001st is resource_limit; a held one still hears another process', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const root = path.join(tmp.dir, 'proj');
    fs.mkdirSync(root);
    const watcher = await connectClient({ dataDir, args: ['--allow-root', tmp.dir] });
    const writer = await connectClient({ dataDir, args: ['--allow-root', tmp.dir] });
    const updated: string[] = [];
    watcher.client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => void updated.push(n.params.uri));
    try {
      const tasksUri = 'workgraph://projects/capped/tasks';
      await watcher.client.subscribeResource({ uri: tasksUri });
      for (let i = 0; i < 999; i++) await watcher.client.subscribeResource({ uri: absentSession(i) });

      const refused = await refusal(watcher.client.subscribeResource({ uri: absentSession(5_000) }));
      expect(refused.data).toEqual({ code: 'resource_limit' });
      expect(refused.message).toMatch(/holds 1000 resource subscriptions.*--max-subscriptions/);
      // Subscribing again to one already held is no new subscription.
      await expect(watcher.client.subscribeResource({ uri: absentSession(7) })).resolves.toBeDefined();
      // One freed place is one new subscription, and no more.
      await watcher.client.unsubscribeResource({ uri: absentSession(7) });
      await watcher.client.subscribeResource({ uri: absentSession(5_000) });
      expect((await refusal(watcher.client.subscribeResource({ uri: absentSession(5_001) }))).data).toEqual({ code: 'resource_limit' });

      // Another process creates the subscribed project: announced.
      const r = await writer.client.callTool({ name: 'init_project_graph', arguments: { projectName: 'capped', projectRoot: root, nodes: [{ id: 'a', title: 'A', depends_on: [] }] } });
      expect(r.isError).toBeFalsy();
      const end = Date.now() + 30_000;
      while (!updated.includes(tasksUri) && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
      expect(updated).toEqual([tasksUri]);
    } finally {
      await watcher.close();
      await writer.close();
    }
  });

  it('--max-subscriptions moves the bound', async () => {
    const conn = await connectClient({ dataDir: path.join(tmp.dir, 'data'), args: ['--max-subscriptions', '2'] });
    try {
      await conn.client.subscribeResource({ uri: absentSession(1) });
      await conn.client.subscribeResource({ uri: absentSession(2) });
      const refused = await refusal(conn.client.subscribeResource({ uri: absentSession(3) }));
      expect(refused.data).toEqual({ code: 'resource_limit' });
      expect(refused.message).toContain('holds 2 resource subscriptions');
    } finally {
      await conn.close();
    }
  });
});
