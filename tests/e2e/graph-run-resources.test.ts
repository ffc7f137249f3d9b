/**
 * A graph run as an MCP resource (`workgraph://graph/runs/<runId>`), end to end with built servers on one file data
 * dir: a slow run started through one server process is listed, read and subscribed to in another, which hears its
 * live record's saves and its end — legacy era (resources/subscribe, SDK v1 client) and 2026-07-28 era
 * (subscriptions/listen, SDK v2 client) — and reads it as graph_inspect answers it, a page from an execution index on;
 * and the same across two servers of one PostgreSQL database (the store's NOTIFY, heard by every instance).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectClient, tempDir } from './helpers/server-process';
import { connectModernStdio } from './helpers/modern-client';
import { slowLoopGraph } from './helpers/slow-loop-graph';
import { startTestPostgres } from '../helpers/postgres';

jest.setTimeout(180_000);
type Json = Record<string, any>;
let tmp: ReturnType<typeof tempDir>;
let args: string[];

beforeAll(() => {
  tmp = tempDir('wg-run-res-');
  fs.writeFileSync(path.join(tmp.dir, 'slow.yaml'), slowLoopGraph('slow'));
  args = ['--graphs', path.join(tmp.dir, 'slow.yaml')];
});
afterAll(() => tmp.cleanup());

async function until<T>(what: string, probe: () => Promise<T> | T, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const text = (read: { contents: Array<Record<string, unknown>> }): Json => JSON.parse(read.contents[0]!.text as string);

test('legacy era: another process lists the run still going, reads it, hears each save and its end', async () => {
  const dataDir = path.join(tmp.dir, 'legacy');
  const runner = await connectClient({ dataDir, args });
  const watcher = await connectClient({ dataDir, args });
  const updated: string[] = [];
  watcher.client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => void updated.push(n.params.uri));
  try {
    const templates = await watcher.client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toContain('workgraph://graph/runs/{runId}');
    const running = runner.client.callTool({ name: 'slow_loop', arguments: { n: 4, ms: 500 } }, undefined, { timeout: 120_000 });
    // The run's live record is listed by the other process while it runs.
    const listed = await until('the run listed', async () => (await watcher.client.listResources()).resources.filter((r) => r.uri.startsWith('workgraph://graph/runs/')), (l) => l.length === 1);
    expect(listed[0]!.title).toMatch(/^slow_loop: run running/);
    const uri = listed[0]!.uri;
    await watcher.client.subscribeResource({ uri });
    const first = text(await watcher.client.readResource({ uri }));
    expect(first).toMatchObject({ tool: 'slow_loop', status: 'running', historyOffset: 0 });
    // Its live record's saves are heard as it goes on (each a node boundary at most ~250 ms apart).
    await until('two updates', () => updated.length, (n) => n >= 2);
    expect(new Set(updated)).toEqual(new Set([uri]));
    const done = (await running) as Json;
    expect(done.isError).toBeFalsy();
    expect(uri).toBe(`workgraph://graph/runs/${done._meta['workgraph/executionId']}`);
    const last = await until('the final record read', async () => text(await watcher.client.readResource({ uri })), (r) => r.status === 'finished');
    expect(last).toMatchObject({ result: { iterations: 4, waits: 4 }, currentNodeId: null, historyTotal: last.executionCount });
    expect(last.history.map((e: Json) => e.executionIndex)).toEqual([...Array(last.executionCount).keys()]);
    // A page from an execution index on.
    const page = text(await watcher.client.readResource({ uri: `${uri}?offset=5` }));
    expect(page.history[0].executionIndex).toBe(5);
    expect(page).not.toHaveProperty('nextUri');
    // A run nobody ran is as unknown as any missing resource.
    await expect(watcher.client.readResource({ uri: 'workgraph://graph/runs/no-such-run' })).rejects.toThrow(/not_found: execution 'no-such-run' not found/);
  } finally {
    await runner.close();
    await watcher.close();
  }
});

test('2026-07-28 era: a listen stream naming the run hears its saves, and the resource reads as graph_inspect answers', async () => {
  const dataDir = path.join(tmp.dir, 'modern');
  const runner = await connectClient({ dataDir, args });
  const watcher = await connectModernStdio({ dataDir, args });
  const updated: string[] = [];
  watcher.client.setNotificationHandler('notifications/resources/updated', async (n) => void updated.push(n.params.uri));
  try {
    // Longer than the 5 s the client may keep a resources/list answer (its cache hint): listed while still going.
    const running = runner.client.callTool({ name: 'slow_loop', arguments: { n: 12, ms: 700 } }, undefined, { timeout: 120_000 });
    const listed = await until('the run listed', async () => (await watcher.client.listResources()).resources.filter((r) => r.uri.startsWith('workgraph://graph/runs/')), (l) => l.length === 1);
    const uri = listed[0]!.uri;
    const runId = uri.slice('workgraph://graph/runs/'.length);
    const sub = await watcher.client.listen({ resourceSubscriptions: [uri] });
    expect(sub.honoredFilter).toMatchObject({ resourceSubscriptions: [uri] });
    await until('two updates', () => updated.length, (n) => n >= 2);
    await running;
    const last = await until('the final record read', async () => text(await watcher.client.readResource({ uri })), (r) => r.status === 'finished');
    // The process that did not run it answers graph_inspect from the run's record, as the resource does.
    const inspected = await watcher.client.callTool({ name: 'graph_inspect', arguments: { executionId: runId } });
    expect(inspected.structuredContent).toEqual(last);
    await sub.close();
  } finally {
    await runner.close();
    await watcher.close();
  }
});

test('PostgreSQL: a server of the same database hears the run another one runs (NOTIFY) and reads its record', async () => {
  const pg = await startTestPostgres();
  try {
    const url = await pg.createTestDatabase();
    const db = ['--database-url', url];
    const runner = await connectClient({ dataDir: path.join(tmp.dir, 'pg-a'), args: [...args, ...db] });
    const watcher = await connectClient({ dataDir: path.join(tmp.dir, 'pg-b'), args: [...args, ...db] });
    const updated: string[] = [];
    watcher.client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => void updated.push(n.params.uri));
    try {
      const running = runner.client.callTool({ name: 'slow_loop', arguments: { n: 4, ms: 500 } }, undefined, { timeout: 120_000 });
      const listed = await until('the run listed', async () => (await watcher.client.listResources()).resources.filter((r) => r.uri.startsWith('workgraph://graph/runs/')), (l) => l.length === 1);
      const uri = listed[0]!.uri;
      await watcher.client.subscribeResource({ uri });
      expect(text(await watcher.client.readResource({ uri }))).toMatchObject({ status: 'running' });
      await until('two updates', () => updated.length, (n) => n >= 2);
      await running;
      const last = await until('the final record read', async () => text(await watcher.client.readResource({ uri })), (r) => r.status === 'finished');
      expect(last.result).toMatchObject({ iterations: 4 });
    } finally {
      await runner.close();
      await watcher.close();
    }
  } finally {
    await pg.stop();
  }
});
