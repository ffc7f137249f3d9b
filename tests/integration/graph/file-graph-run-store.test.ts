import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileGraphRunStore } from '../../../src/modules/graph/infrastructure/file-graph-run-store';
import type { GraphRunRecord } from '../../../src/modules/graph/domain/graph-run-record';
import { loadGraph } from '../../../src/index';
import { runRecord } from '../../contracts/graph-run-store.contract';

const record = runRecord;

describe('FileGraphRunStore', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-runs-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  // Order, bound and lookups are the GraphRunStore contract (graph-run-store.contract.test.ts); here: the files.
  it('writes two files per run (record and summary) and leaves no temp file behind', async () => {
    const store = new FileGraphRunStore(dir, 3);
    for (let i = 0; i < 5; i++) await store.save(record('alpha', `a${i}`, 1_700_000_000_000 + i * 1000));
    expect(fs.readdirSync(path.join(dir, 'graph-runs', 'alpha')).sort()).toHaveLength(6);
  });

  it('stores a tool name that is not a safe file name under an encoded folder', async () => {
    const store = new FileGraphRunStore(dir, 5);
    await store.save(record('../weird tool', 'w1', 1_700_000_000_000));
    expect(fs.readdirSync(path.join(dir, 'graph-runs'))).toEqual([expect.stringMatching(/^~[0-9a-f]+$/)]);
    expect((await store.list({ tool: '../weird tool' }))[0].runId).toBe('w1');
  });

  it('an empty data dir lists nothing', async () => {
    expect(await new FileGraphRunStore(path.join(dir, 'none')).list()).toEqual([]);
  });

  it('the engine records each run after it ends: completed with its executions, failed with its error', async () => {
    const store = new FileGraphRunStore(dir, 10);
    const saved: GraphRunRecord[] = [];
    const host = await loadGraph(path.resolve(__dirname, '../../../examples/graphs/sum_to_n.yaml'), {
      runStore: { save: async (r) => { await store.save(r); saved.push(r); }, list: (o) => store.list(o), get: (id) => store.get(id) },
    });
    try {
      const ok = host.executeTool('sum_to_n', { n: 3 });
      await ok.promise;
      await expect(host.executeTool('sum_to_n', { n: 'x' }).promise).rejects.toBeDefined();
      for (let i = 0; i < 100 && saved.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
      const done = await store.get(ok.executionId);
      expect(done).toMatchObject({ tool: 'sum_to_n', status: 'completed', input: { n: 3 }, result: { sum: 6 }, truncated: false });
      expect(done.executions.map((e) => e.nodeId)[0]).toBe('entry_sum');
      expect(done.nodeExecutions).toBe(done.executions.length);
      const failed = saved.find((r) => r.status === 'failed')!;
      expect(failed.runError?.code).toBe('invalid_arguments');
    } finally {
      await host.close();
    }
  });
});
