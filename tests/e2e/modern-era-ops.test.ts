import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { HttpServerProcess, waitFor } from './helpers/http-server';
import { connectModernHttp, connectModernStdio, type ModernConn } from './helpers/modern-client';
import { tempDir } from './helpers/server-process';

/**
 * The modern era (2026-07-28) beyond the journey of modern-era.test.ts, on the built server over stdio and HTTP:
 * - the log level rides each request (`_meta["io.modelcontextprotocol/logLevel"]`): a request that names one hears
 *   its own call's log entries at that level and above as notifications/message; one without hears none;
 * - a knowledge node's own URI (`workgraph://knowledge/<project>/nodes/<id>`) named on a listen stream is announced
 *   when its project changes;
 * - in file mode (no PostgreSQL) a listen stream on one process hears the changes another process makes to the same
 *   data dir (task graphs, knowledge, sessions).
 */
type Answer = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
const WORKFLOWS = path.resolve(__dirname, '../fixtures/session-workflows');

jest.setTimeout(120_000);

async function call(client: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<Answer> {
  const r = await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }, { timeout: 60_000 });
  if (r.isError) throw new Error(JSON.stringify(r.content));
  return r.structuredContent as Answer;
}

function updates(client: Client): string[] {
  const seen: string[] = [];
  client.setNotificationHandler('notifications/resources/updated', async (n: { params: { uri: string } }) => void seen.push(n.params.uri));
  return seen;
}

describe('the modern era: per-request log level, knowledge node URIs, other processes in file mode', () => {
  let tmp: ReturnType<typeof tempDir>;
  beforeEach(() => (tmp = tempDir('wg-modern-ops-')));
  afterEach(() => tmp.cleanup());

  /** Deletes a fresh node with `meta` on the delete; returns the log messages that call heard. */
  async function deleteHearing(client: Client, project: string, id: string, meta?: Record<string, unknown>): Promise<Array<{ level: string; text: string }>> {
    const heard: Array<{ level: string; text: string }> = [];
    client.setNotificationHandler('notifications/message', async (n: { params: { level: string; data: unknown } }) => void heard.push({ level: n.params.level, text: JSON.stringify(n.params.data) }));
    await call(client, 'add_nodes', { projectContext: project, nodes: [{ id, thought: `thought ${id}`, role: 'actor' }] });
    await call(client, 'delete_nodes', { projectContext: project, nodeIds: [id], reason: 'test' }, meta);
    // The messages of a call arrive before its answer; a moment more for any stray one.
    await new Promise((r) => setTimeout(r, 200));
    return heard;
  }

  async function logLevels(conn: ModernConn): Promise<void> {
    const { client } = conn;
    expect(client.getServerCapabilities()).toHaveProperty('logging');
    const info = await deleteHearing(client, 'logs', 'n1', { [LOG_LEVEL]: 'info' });
    expect(info.some((m) => m.level === 'info' && m.text.includes('knowledge backup created') && m.text.includes('logs'))).toBe(true);
    expect(await deleteHearing(client, 'logs', 'n2')).toEqual([]);
    expect(await deleteHearing(client, 'logs', 'n3', { [LOG_LEVEL]: 'error' })).toEqual([]);
  }

  it('stdio: a request hears its own log entries at the level its envelope names, none without it', async () => {
    const conn = await connectModernStdio({ dataDir: path.join(tmp.dir, 'data') });
    try {
      await logLevels(conn);
    } finally {
      await conn.close();
    }
  });

  it('HTTP: the same, on the answer of the request that asked; a concurrent request without a level hears nothing', async () => {
    const server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data') });
    const conn = await connectModernHttp(server.url);
    const quiet = await connectModernHttp(server.url);
    try {
      const [, silent] = await Promise.all([logLevels(conn), deleteHearing(quiet.client, 'quiet', 'q1')]);
      expect(silent).toEqual([]);
    } finally {
      await conn.close();
      await quiet.close();
      server.kill();
    }
  });

  async function nodeUri(client: Client): Promise<void> {
    await call(client, 'add_nodes', { projectContext: 'kn', nodes: [{ id: 'root', thought: 'the root', role: 'actor' }] });
    const seen = updates(client);
    const uri = 'workgraph://knowledge/kn/nodes/root';
    const sub = await client.listen({ resourceSubscriptions: [uri] });
    try {
      await call(client, 'add_nodes', { projectContext: 'kn', nodes: [{ id: 'child', thought: 'a child', role: 'actor', parents: ['root'] }] });
      await waitFor('resources/updated for the knowledge node URI', () => seen.includes(uri));
    } finally {
      await sub.close();
    }
  }

  it("a knowledge node's own URI named on a listen stream is announced when its project changes (stdio and HTTP)", async () => {
    const stdio = await connectModernStdio({ dataDir: path.join(tmp.dir, 'data-stdio') });
    try {
      await nodeUri(stdio.client);
    } finally {
      await stdio.close();
    }
    const server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data-http') });
    const http = await connectModernHttp(server.url);
    try {
      await nodeUri(http.client);
    } finally {
      await http.close();
      server.kill();
    }
  });

  it('a listen stream naming more resources than --max-subscriptions is refused with resource_limit (stdio and HTTP)', async () => {
    const args = ['--max-subscriptions', '2'];
    const uris = ['workgraph://projects/a/tasks', 'workgraph://projects/b/tasks', 'workgraph://knowledge/c'];
    const expectRefusedThenServed = async (client: Client) => {
      const refused = await client.listen({ resourceSubscriptions: uris }).then(
        () => undefined,
        (e: { code?: number; message?: string; data?: unknown }) => e,
      );
      expect(refused?.message).toMatch(/resourceSubscriptions names 3 resources; one stream may name at most 2 \(--max-subscriptions\)/);
      expect(refused?.data).toMatchObject({ code: 'resource_limit' });
      const sub = await client.listen({ resourceSubscriptions: uris.slice(0, 2) });
      expect(sub.honoredFilter.resourceSubscriptions).toEqual(uris.slice(0, 2));
      await sub.close();
    };
    const stdio = await connectModernStdio({ dataDir: path.join(tmp.dir, 'data'), args });
    try {
      await expectRefusedThenServed(stdio.client);
    } finally {
      await stdio.close();
    }
    const server = await HttpServerProcess.start({ dataDir: path.join(tmp.dir, 'data'), args });
    const http = await connectModernHttp(server.url);
    try {
      await expectRefusedThenServed(http.client);
    } finally {
      await http.close();
      server.kill();
    }
  });

  it('file mode: a listen stream on one process hears what another process changes in the same data dir', async () => {
    const dataDir = path.join(tmp.dir, 'shared');
    const root = path.join(tmp.dir, 'proj');
    fs.mkdirSync(root);
    const args = ['--workflows', WORKFLOWS, '--allow-root', tmp.dir];
    const server = await HttpServerProcess.start({ dataDir, args });
    const writer = await connectModernStdio({ dataDir, args });
    const overHttp = await connectModernHttp(server.url);
    const overStdio = await connectModernStdio({ dataDir, args });
    try {
      await call(writer.client, 'init_project_graph', { projectName: 'shared', projectRoot: root, nodes: [{ id: 'a', title: 'A', depends_on: [] }, { id: 'b', title: 'B', depends_on: [] }] });
      await call(writer.client, 'add_nodes', { projectContext: 'shared', nodes: [{ id: 'k1', thought: 'first', role: 'actor' }] });
      const session = await call(writer.client, 'workflow_start', { workflowId: 'session-demo', context: { files: [] } });
      const uris = ['workgraph://projects/shared/tasks', 'workgraph://knowledge/shared', 'workgraph://knowledge/shared/nodes/k1', `workgraph://sessions/${session.sessionId}`];
      const listeners = [overHttp, overStdio].map((conn) => ({ conn, seen: updates(conn.client) }));
      const subs = await Promise.all(listeners.map((l) => l.conn.client.listen({ resourceSubscriptions: uris })));
      try {
        await call(writer.client, 'start_task', { project: 'shared', nodeId: 'a' });
        await call(writer.client, 'add_nodes', { projectContext: 'shared', nodes: [{ id: 'k2', thought: 'second', role: 'actor' }] });
        await call(writer.client, 'workflow_continue', { continueToken: session.continueToken, output: { notesMarkdown: 'done by another process' } });
        for (const [i, l] of listeners.entries()) {
          for (const uri of uris) await waitFor(`${i ? 'stdio' : 'HTTP'} listener hears ${uri} changed by another process`, () => l.seen.includes(uri));
        }
      } finally {
        await Promise.all(subs.map((s) => s.close()));
      }
    } finally {
      await writer.close();
      await overHttp.close();
      await overStdio.close();
      server.kill();
    }
  });
});
