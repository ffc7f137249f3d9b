/**
 * A run still going is recorded live: the run store (real files in a temp data dir) holds its record with status
 * `running`, its current node and the executions so far, several times while it runs; the final record replaces it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileGraphRunStore } from '../../../src/modules/graph/infrastructure/file-graph-run-store';
import { FakeMcpClientPool, runnerFor } from '../../unit/application/graph/graph-test-kit';
import type { GraphRunRecord } from '../../../src/modules/graph/domain/graph-run-record';

const LOOP = `
server: { name: "t", version: "1" }
mcpServers:
  srv: { command: "node" }
tools:
  - name: "slow_loop"
    description: "loops n times, each through a slow mcp call"
    inputSchema: { type: "object", properties: { n: { type: "number" } } }
    outputSchema: { type: "object" }
    nodes:
      - id: "entry"
        type: "entry"
        next: "wait"
      - id: "wait"
        type: "mcp"
        server: "srv"
        tool: "slow"
        args: { ms: 5 }
        next: "count"
      - id: "count"
        type: "transform"
        transform: { expr: '{ "i": $executionCount("count") + 1, "n": $.entry.n }' }
        next: "check"
      - id: "check"
        type: "switch"
        conditions:
          - rule: { "<": [{ "var": "$.count.i" }, { "var": "$.count.n" }] }
            target: "wait"
          - target: "done"
      - id: "done"
        type: "transform"
        transform: { expr: '$.count' }
        next: "exit"
      - id: "exit"
        type: "exit"
`;

test('a running run is saved live (running, current node, executions so far), then its final record replaces it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-live-rec-'));
  try {
    const store = new FileGraphRunStore(dir);
    const seen: GraphRunRecord[] = [];
    const saving = { save: async (r: GraphRunRecord) => { seen.push(JSON.parse(JSON.stringify(r))); await store.save(r); }, list: store.list.bind(store), get: store.get.bind(store) };
    // Every 15th call waits (up to 10 s) for one more live save than at the previous one: on a busy disk a save can
    // outlast the whole loop, and the saves seen must not depend on how fast the disk is.
    let calls = 0;
    let liveAtHold = 0;
    const liveSeen = () => seen.filter((r) => r.status === 'running').length;
    const pool = new FakeMcpClientPool(async () => {
      await new Promise((r) => setTimeout(r, 5));
      if (++calls % 15 === 0) {
        for (let t = 0; t < 1000 && liveSeen() <= liveAtHold; t++) await new Promise((r) => setTimeout(r, 10));
        liveAtHold = liveSeen();
      }
      return { content: [{ type: 'text', text: 'ok' }], structuredContent: { ok: true } } as never;
    });
    const runner = runnerFor(LOOP, { mcpClientPool: pool, runStore: saving, liveRecordMs: 30 });
    const run = runner.executeTool('slow_loop', { n: 60 });
    // While it runs, the store answers the live record.
    let live: GraphRunRecord | undefined;
    while (!live) {
      await new Promise((r) => setTimeout(r, 20));
      live = await store.get(run.executionId).catch(() => undefined);
    }
    expect(live.status).toBe('running');
    expect(['entry', 'wait', 'count', 'check']).toContain(live.currentNode);
    // (Its summary is written just after the record: a list a moment later has it.)
    let listed = await store.list({ tool: 'slow_loop' });
    for (let i = 0; i < 50 && !listed.length; i++) listed = await new Promise((r) => setTimeout(r, 10)).then(() => store.list({ tool: 'slow_loop' }));
    expect(listed[0]).toMatchObject({ runId: run.executionId, status: 'running' });
    const { result } = await run.promise;
    expect(result).toEqual({ i: 60, n: 60 });
    let final = await store.get(run.executionId);
    for (let i = 0; i < 100 && final.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      final = await store.get(run.executionId);
    }
    expect(final.status).toBe('completed');
    expect(final.currentNode).toBeUndefined();
    expect(final.result).toEqual({ i: 60, n: 60 });
    // Several live saves, growing, all before the final one (which is the last save).
    const liveSaves = seen.filter((r) => r.status === 'running');
    expect(liveSaves.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < liveSaves.length; i++) expect(liveSaves[i]!.nodeExecutions).toBeGreaterThanOrEqual(liveSaves[i - 1]!.nodeExecutions);
    expect(seen[seen.length - 1]!.status).toBe('completed');
    await new Promise((r) => setTimeout(r, 100));
    expect(seen[seen.length - 1]!.status).toBe('completed');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('liveRecordMs 0 saves only the final record', async () => {
  const seen: string[] = [];
  const pool = new FakeMcpClientPool(async () => {
    await new Promise((r) => setTimeout(r, 5));
    return { content: [{ type: 'text', text: 'ok' }] } as never;
  });
  const store = { save: async (r: GraphRunRecord) => void seen.push(r.status), list: async () => [], get: async () => { throw new Error('no'); } };
  const runner = runnerFor(LOOP, { mcpClientPool: pool, runStore: store, liveRecordMs: 0 });
  await runner.executeTool('slow_loop', { n: 20 }).promise;
  await new Promise((r) => setTimeout(r, 50));
  expect(seen).toEqual(['completed']);
});

test('a paused run is saved once per pause, not on every tick (a run held in the debugger for minutes writes nothing more)', async () => {
  const seen: Array<{ status: string; nodeExecutions: number; currentNode?: string }> = [];
  const pool = new FakeMcpClientPool(async () => ({ content: [{ type: 'text', text: 'ok' }] }) as never);
  const store = { save: async (r: GraphRunRecord) => void seen.push({ status: r.status, nodeExecutions: r.nodeExecutions, ...(r.currentNode ? { currentNode: r.currentNode } : {}) }), list: async () => [], get: async () => { throw new Error('no'); } };
  const runner = runnerFor(LOOP, { mcpClientPool: pool, runStore: store, liveRecordMs: 10 });
  const run = runner.executeTool('slow_loop', { n: 3 }, { breakpoints: ['count'] });
  // Held before count (entry and wait ran) for about 30 ticks.
  while (run.controller.getState().status !== 'paused') await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 300));
  expect(seen.filter((s) => s.status === 'paused')).toEqual([{ status: 'paused', nodeExecutions: 2, currentNode: 'count' }]);
  // The next pause (the loop's second count) is saved once again; then the run ends as usual.
  run.controller.resume();
  while (run.controller.getState().executionCount < 5) await new Promise((r) => setTimeout(r, 5));
  await new Promise((r) => setTimeout(r, 150));
  expect(seen.filter((s) => s.status === 'paused')).toEqual([
    { status: 'paused', nodeExecutions: 2, currentNode: 'count' },
    { status: 'paused', nodeExecutions: 5, currentNode: 'count' },
  ]);
  run.controller.setBreakpoints([]);
  run.controller.resume();
  await run.promise;
  await new Promise((r) => setTimeout(r, 50));
  expect(seen[seen.length - 1]!.status).toBe('completed');
});

test('a run blocked in one long node is not saved again while its record stays the same; it is once it goes on (files store)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-live-idle-'));
  try {
    const store = new FileGraphRunStore(dir);
    let release!: () => void;
    const blocked = new Promise<void>((r) => (release = r));
    let calls = 0;
    // The first `wait` is one long MCP call (held until released); the loop's second one answers at once.
    const pool = new FakeMcpClientPool(async () => {
      if (++calls === 1) await blocked;
      return { content: [{ type: 'text', text: 'ok' }], structuredContent: { ok: true } } as never;
    });
    const runner = runnerFor(LOOP, { mcpClientPool: pool, runStore: store, liveRecordMs: 10 });
    const run = runner.executeTool('slow_loop', { n: 2 });
    const toolDir = path.join(dir, 'graph-runs', 'slow_loop');
    const recordFile = (): string | undefined => {
      const name = fs.existsSync(toolDir) ? fs.readdirSync(toolDir).find((n) => n.endsWith(`-${run.executionId}.json`)) : undefined;
      return name && path.join(toolDir, name);
    };
    // Each save replaces the record file (temp file + rename): a new inode, a new change time.
    const identity = (file: string) => {
      const st = fs.statSync(file, { bigint: true });
      return `${st.ino}/${st.ctimeNs}/${st.mtimeNs}`;
    };
    let file: string | undefined;
    let live: GraphRunRecord | undefined;
    while (!(live?.currentNode === 'wait' && live.nodeExecutions === 1)) {
      await new Promise((r) => setTimeout(r, 5));
      file = recordFile();
      live = file ? await store.get(run.executionId).catch(() => undefined) : undefined;
    }
    expect(live.status).toBe('running');
    const saved = identity(file!);
    // Some 30 ticks of the recorder with the run held in that one call: the record file is the one written first.
    for (let i = 0; i < 30; i++) {
      await new Promise((r) => setTimeout(r, 10));
      expect(identity(file!)).toBe(saved);
    }
    expect(run.controller.getState()).toMatchObject({ status: 'running', currentNodeId: 'wait', executionCount: 1 });

    release();
    expect((await run.promise).result).toEqual({ i: 2, n: 2 });
    let final = await store.get(run.executionId);
    for (let i = 0; i < 100 && final.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      final = await store.get(run.executionId);
    }
    expect(final).toMatchObject({ status: 'completed', nodeExecutions: 9 });
    expect(identity(file!)).not.toBe(saved);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
