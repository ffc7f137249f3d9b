import * as fs from 'node:fs';
import * as path from 'node:path';
import { connectClient, tempDir } from './helpers/server-process';

/**
 * Memory bounds of graph runs through the built server (docs/writing-graphs.md "Memory"): finished runs are kept
 * within --graph-history-mb (oldest dropped first), a run's history is capped (--graph-run-history-mb), a result over
 * --graph-result-mb is an execution_limit error naming the cap. The RSS check is CI-sized; `npm run stress` runs the
 * issue's 12 × sum_to_n {n: 450000} with the defaults (tests/stress/graph-memory.js).
 */

type Result = { isError?: boolean; structuredContent?: Record<string, unknown>; content: Array<{ text: string }>; _meta?: Record<string, unknown> };

const ROOT = path.resolve(__dirname, '../..');
const MIB = 1024 * 1024;

async function waitFor(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting for the log line');
    await new Promise((r) => setTimeout(r, 50));
  }
}

function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

describe('graph run memory (built server)', () => {
  let tmp: ReturnType<typeof tempDir>;
  let conn: Awaited<ReturnType<typeof connectClient>>;

  beforeAll(async () => {
    tmp = tempDir('wg-graph-mem-');
    const big = {
      server: { name: 'big', version: '1.0.0' },
      tools: [
        {
          name: 'big_text',
          description: 'a result of the size asked for',
          inputSchema: { type: 'object', properties: { size: { type: 'number' } }, required: ['size'] },
          outputSchema: { type: 'object' },
          nodes: [
            { id: 'entry', type: 'entry', next: 'make' },
            { id: 'make', type: 'transform', transform: { expr: '{ "text": $pad("", $.entry.size, "x") }' }, next: 'exit' },
            { id: 'exit', type: 'exit' },
          ],
        },
        {
          name: 'fat_loop',
          description: 'steps loop iterations, each output a fresh string of size bytes: the run holds steps × size of history',
          inputSchema: { type: 'object', properties: { steps: { type: 'number' }, size: { type: 'number' } }, required: ['steps', 'size'] },
          outputSchema: { type: 'object' },
          nodes: [
            { id: 'entry', type: 'entry', next: 'grow' },
            { id: 'grow', type: 'transform', transform: { expr: '{ "i": $executionCount("grow") + 1, "blob": $pad("", $.entry.size, "y") }' }, next: 'check' },
            {
              id: 'check',
              type: 'switch',
              conditions: [{ rule: { '<': [{ var: '$.grow.i' }, { var: '$.entry.steps' }] }, target: 'grow' }, { target: 'done' }],
            },
            { id: 'done', type: 'transform', transform: { expr: '{ "steps": $.grow.i }' }, next: 'exit' },
            { id: 'exit', type: 'exit' },
          ],
        },
        {
          name: 'huge_items',
          description: 'count items sharing one 1 MiB string: JSON past the longest string V8 can build, in 1 MiB of memory',
          inputSchema: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] },
          outputSchema: { type: 'object' },
          nodes: [
            { id: 'entry', type: 'entry', next: 'make' },
            {
              id: 'make',
              type: 'transform',
              transform: { expr: '( $s := $pad("", 1048576, "x"); { "items": $map([1..$.entry.count], function($i) { $s }) } )' },
              next: 'exit',
            },
            { id: 'exit', type: 'exit' },
          ],
        },
      ],
    };
    fs.writeFileSync(path.join(tmp.dir, 'big.json'), JSON.stringify(big));
    conn = await connectClient({
      dataDir: path.join(tmp.dir, 'data'),
      args: [
        '--graphs', path.join(ROOT, 'examples/graphs/sum_to_n.yaml'),
        '--graphs', path.join(tmp.dir, 'big.json'),
        '--graph-history-mb', '2',
        '--graph-result-mb', '1',
        // Runs not recorded: graph_inspect would answer a run the engine dropped from its record (the run store).
        '--graph-runs-keep', '0',
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    tmp.cleanup();
  });

  const call = async (name: string, args: Record<string, unknown>) => (await conn.client.callTool({ name, arguments: args }, undefined, { timeout: 300_000 })) as Result;

  it('keeps finished runs within --graph-history-mb, the newest inspectable, the oldest dropped', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await call('sum_to_n', { n: 5_000 });
      expect(r.structuredContent).toEqual({ sum: 12_502_500 });
      ids.push(r._meta!['workgraph/executionId'] as string);
    }
    // Each run holds about 0.7 MiB of history: with a 2 MiB bound only the newest few are kept.
    const newest = await call('graph_inspect', { executionId: ids[5], limit: 2 });
    expect(newest.isError).toBeFalsy();
    expect(newest.structuredContent!.historyTotal).toBe(2 * 5_000 + 3);
    const oldest = await call('graph_inspect', { executionId: ids[0] });
    expect(oldest.isError).toBe(true);
    expect(oldest._meta!['workgraph/errorCode']).toBe('not_found');
  }, 600_000);

  it('bounds the memory of finished runs: 30 runs of 12 MiB of history each (360 MiB if kept) fit a 192 MiB old generation', async () => {
    // V8 collects lazily, so RSS alone cannot tell kept history from garbage: the server gets a small old generation
    // instead. Kept history (360 MiB) would make it die of "heap out of memory"; bounded, it finishes every run.
    const capped = await connectClient({
      dataDir: path.join(tmp.dir, 'data-capped'),
      args: ['--graphs', path.join(tmp.dir, 'big.json'), '--graph-history-mb', '8'],
      env: { NODE_OPTIONS: '--max-old-space-size=192' },
    });
    try {
      const rss: number[] = [];
      for (let i = 0; i < 30; i++) {
        const r = (await capped.client
          .callTool({ name: 'fat_loop', arguments: { steps: 12, size: MIB } }, undefined, { timeout: 120_000 })
          .catch((e: Error) => {
            throw new Error(`run ${i + 1}: ${e.message}; server stderr: ${capped.stderr().slice(-2000)}`);
          })) as Result;
        expect(r.structuredContent).toEqual({ steps: 12 });
        rss.push(rssOf(capped.transport.pid!));
      }
      expect(capped.stderr()).not.toMatch(/heap out of memory/i);
      // Node, the SDK, JSONata, 8 MiB kept, one run in progress and the young generation: well under 360 MiB.
      expect(Math.max(...rss)).toBeLessThan(320 * MIB);
    } finally {
      await capped.close();
    }
  }, 600_000);

  it('answers a result over --graph-result-mb with execution_limit naming the cap', async () => {
    const small = await call('big_text', { size: 1_000 });
    expect(small.isError).toBeFalsy();
    const r = await call('big_text', { size: 2 * MIB });
    expect(r.isError).toBe(true);
    expect(r._meta!['workgraph/errorCode']).toBe('execution_limit');
    expect(r.content[0].text).toMatch(/maxResultBytes \(1 MiB\) exceeded: the result is over 1 MiB as JSON \(raise --graph-result-mb\)/);
    // Logged for the operator too, naming the run.
    await waitFor(() => /graph run stopped: tool 'big_text': execution limit maxResultBytes \(1 MiB\)/.test(conn.stderr()));
    // The server goes on serving.
    expect((await call('sum_to_n', { n: 10 })).structuredContent).toEqual({ sum: 55 });
  }, 120_000);

  it('answers a result past V8\'s longest string (600 MiB of JSON, cap raised to 4 GiB) with execution_limit and a log line, not silence', async () => {
    const raised = await connectClient({
      dataDir: path.join(tmp.dir, 'data-raised'),
      args: ['--graphs', path.join(tmp.dir, 'big.json'), '--graph-result-mb', '4096'],
    });
    try {
      const before = rssOf(raised.transport.pid!);
      const r = (await raised.client.callTool({ name: 'huge_items', arguments: { count: 600 } }, undefined, { timeout: 120_000 })) as Result;
      expect(r.isError).toBe(true);
      expect(r._meta!['workgraph/errorCode']).toBe('execution_limit');
      expect(r.content[0].text).toMatch(/maxResultBytes \(4 GiB\) exceeded: the result is over 170\.\d MiB as JSON, more than one answer can carry/);
      await waitFor(() => /graph run stopped: .*more than one answer can carry/.test(raised.stderr()));
      // Measured, not serialized: the server never built the text (hundreds of MiB).
      expect(rssOf(raised.transport.pid!) - before).toBeLessThan(200 * MIB);
      const small = (await raised.client.callTool({ name: 'huge_items', arguments: { count: 2 } })) as Result;
      expect(small.isError).toBeFalsy();
    } finally {
      await raised.close();
    }
  }, 180_000);
});
