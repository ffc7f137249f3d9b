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
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    tmp.cleanup();
  });

  const call = async (name: string, args: Record<string, unknown>) => (await conn.client.callTool({ name, arguments: args }, undefined, { timeout: 300_000 })) as Result;

  it('keeps finished runs within --graph-history-mb, the newest inspectable, the oldest dropped; RSS stays bounded', async () => {
    const ids: string[] = [];
    const rss: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await call('sum_to_n', { n: 5_000 });
      expect(r.structuredContent).toEqual({ sum: 12_502_500 });
      ids.push(r._meta!['workgraph/executionId'] as string);
      rss.push(rssOf(conn.transport.pid!));
    }
    // Each run holds about 0.7 MiB of history: with a 2 MiB bound only the newest few are kept.
    const newest = await call('graph_inspect', { executionId: ids[5], limit: 2 });
    expect(newest.isError).toBeFalsy();
    expect(newest.structuredContent!.historyTotal).toBe(2 * 5_000 + 3);
    const oldest = await call('graph_inspect', { executionId: ids[0] });
    expect(oldest.isError).toBe(true);
    expect(oldest._meta!['workgraph/errorCode']).toBe('not_found');
    // A generous bound for the whole server (Node, the SDK, JSONata and 2 MiB of history), not a speed figure.
    expect(Math.max(...rss)).toBeLessThan(400 * MIB);
  }, 600_000);

  it('answers a result over --graph-result-mb with execution_limit naming the cap', async () => {
    const small = await call('big_text', { size: 1_000 });
    expect(small.isError).toBeFalsy();
    const r = await call('big_text', { size: 2 * MIB });
    expect(r.isError).toBe(true);
    expect(r._meta!['workgraph/errorCode']).toBe('execution_limit');
    expect(r.content[0].text).toMatch(/maxResultBytes \(1 MiB\) exceeded: the result is 2 MiB as JSON/);
    // The server goes on serving.
    expect((await call('sum_to_n', { n: 10 })).structuredContent).toEqual({ sum: 55 });
  }, 120_000);
});
