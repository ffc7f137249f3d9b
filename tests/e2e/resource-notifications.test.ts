import * as fs from 'node:fs';
import * as path from 'node:path';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from './helpers/server-process';

const WORKFLOWS = path.resolve(__dirname, '../fixtures/session-workflows');

type Answer = Record<string, any>;

async function serverOn(dataDir: string) {
  const conn = await connectClient({ dataDir, args: ['--workflows', WORKFLOWS, '--allow-root', path.dirname(dataDir)] });
  const call = async (name: string, args: Record<string, unknown>): Promise<Answer> => {
    const r = (await conn.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as { isError?: boolean; structuredContent?: Answer; content: Array<{ text?: string }> };
    if (r.isError) throw new Error(r.content[0]?.text);
    return r.structuredContent!;
  };
  const updated: string[] = [];
  conn.client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => {
    updated.push(n.params.uri);
  });
  return { ...conn, call, updated };
}

async function until(cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
}

describe('resource subscriptions across server processes on one file data dir (built servers, SDK clients)', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir('wg-rnot-')));
  afterEach(() => tmp.cleanup());

  it('a client subscribed in one process gets notifications/resources/updated when another process changes the session or the task graph', async () => {
    const dataDir = path.join(tmp.dir, 'data');
    const watcher = await serverOn(dataDir);
    const writer = await serverOn(dataDir);
    try {
      const s = await writer.call('workflow_start', { workflowId: 'session-demo', context: { files: [] } });
      const sessionUri = `workgraph://sessions/${s.sessionId}`;
      await watcher.client.subscribeResource({ uri: sessionUri });
      await writer.call('workflow_continue', { continueToken: s.continueToken, output: { notesMarkdown: 'planned' } });
      await until(() => watcher.updated.includes(sessionUri));
      expect(watcher.updated).toEqual([sessionUri]);
      // What the notification announces is there to read in the subscribed process.
      const read = await watcher.client.readResource({ uri: sessionUri });
      expect(JSON.parse((read.contents[0] as { text: string }).text).events.map((e: { kind: string }) => e.kind)).toContain('step_completed');

      // A project that does not exist yet when the client subscribes.
      const tasksUri = 'workgraph://projects/demo/tasks';
      await watcher.client.subscribeResource({ uri: tasksUri });
      const root = path.join(tmp.dir, 'proj');
      fs.mkdirSync(root);
      await writer.call('init_project_graph', { projectName: 'demo', projectRoot: root, nodes: [{ id: 'a', title: 'A', depends_on: [] }] });
      await until(() => watcher.updated.includes(tasksUri));
      const before = watcher.updated.length;
      await writer.call('start_task', { project: 'demo', nodeId: 'a' });
      await until(() => watcher.updated.length > before);
      expect(watcher.updated.slice(before)).toEqual([tasksUri]);

      // Its own change reaches it once (the store's event; the same write heard through the file system is dropped).
      const mark = watcher.updated.length;
      const own = await watcher.call('workflow_resume', { sessionId: s.sessionId });
      await watcher.call('workflow_continue', { continueToken: own.candidates[0].continueToken, output: { notesMarkdown: 'edited' } });
      await until(() => watcher.updated.length > mark);
      await new Promise((r) => setTimeout(r, 1_000));
      expect(watcher.updated.slice(mark)).toEqual([sessionUri]);

      // Unsubscribed: another process's change no longer reaches it.
      await watcher.client.unsubscribeResource({ uri: sessionUri });
      const r2 = await writer.call('workflow_resume', { sessionId: s.sessionId });
      await writer.call('workflow_checkpoint', { continueToken: r2.candidates[0].continueToken, note: 'here' });
      await new Promise((r) => setTimeout(r, 1_500));
      expect(watcher.updated.slice(mark)).toEqual([sessionUri]);
    } finally {
      await watcher.close();
      await writer.close();
    }
  }, 180_000);
});
