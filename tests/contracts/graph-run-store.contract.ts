import { ContractRun } from './contract-run';
import type { GraphRunStore } from '../../src/modules/graph/application/ports/graph-run-store';
import type { GraphRunRecord } from '../../src/modules/graph/domain/graph-run-record';

/** What an adapter's test hands the contract: a fresh, empty store keeping `keepPerTool` runs per tool. */
export interface GraphRunContractStore {
  store: GraphRunStore;
  cleanup(): Promise<void> | void;
}

export function runRecord(tool: string, runId: string, startMs: number, extra: Partial<GraphRunRecord> = {}): GraphRunRecord {
  return {
    runId,
    tool,
    status: 'completed',
    startedAt: new Date(startMs).toISOString(),
    endedAt: new Date(startMs + 5).toISOString(),
    durationMs: 5,
    nodeExecutions: 1,
    input: { n: 1 },
    result: { ok: true },
    executions: [{ executionIndex: 0, nodeId: 'entry', nodeType: 'entry', startTime: startMs, endTime: startMs + 5, duration: 5, output: { n: 1 } }],
    truncated: false,
    ...extra,
  };
}

const T0 = 1_700_000_000_000;

/**
 * The contract every GraphRunStore adapter keeps (the data-dir files and PostgreSQL): run it from the adapter's test
 * with a factory of fresh stores bounded to `keepPerTool` runs per tool.
 */
export function graphRunStoreContract(name: string, makeStore: (keepPerTool: number) => Promise<GraphRunContractStore>): ContractRun {
  const run = new ContractRun(`GraphRunStore contract: ${name}`);
  describe(run.suite, () => {
    const it = run.it;
    let c: GraphRunContractStore | undefined;
    const open = async (keep: number) => run.met((c = await makeStore(keep)).store);
    afterEach(async () => {
      await c?.cleanup();
      c = undefined;
    });

    it('keeps the last N runs per tool, lists newest first (of one tool, all, limited), and finds a run by id', async () => {
      const store = await open(3);
      for (let i = 0; i < 5; i++) await store.save(runRecord('alpha', `a${i}`, T0 + i * 1000));
      await store.save(runRecord('beta', 'b0', T0 + 500));
      expect((await store.list({ tool: 'alpha' })).map((r) => r.runId)).toEqual(['a4', 'a3', 'a2']);
      expect((await store.list()).map((r) => r.runId)).toEqual(['a4', 'a3', 'a2', 'b0']);
      expect((await store.list({ limit: 2 })).map((r) => r.runId)).toEqual(['a4', 'a3']);
      expect((await store.list({ tool: 'nobody' }))).toEqual([]);
      expect((await store.get('a3')).input).toEqual({ n: 1 });
      await expect(store.get('a0')).rejects.toMatchObject({ code: 'not_found' });
      await expect(store.get('../x')).rejects.toMatchObject({ code: 'not_found' });
    });

    it('gives back a record exactly as saved (times to the millisecond, errors, nested values) and lists its summary only', async () => {
      const store = await open(5);
      const failed = runRecord('gamma', 'g1', T0 + 123, {
        status: 'failed',
        error: 'node n2 failed',
        runError: { code: 'mcp_error', message: 'boom', nodeId: 'n2', stderrTail: 'line 1\nline 2 é' },
        result: undefined,
        file: '/graphs/g.yaml',
        graph: 'G',
        input: { deep: { list: [1, 'two', null, { three: 3.5 }] } },
        truncated: true,
      });
      delete failed.result;
      await store.save(failed);
      expect(await store.get('g1')).toEqual(failed);
      const [summary] = await store.list({ tool: 'gamma' });
      expect(summary).toEqual({
        runId: 'g1', tool: 'gamma', status: 'failed', startedAt: failed.startedAt, endedAt: failed.endedAt, durationMs: 5, nodeExecutions: 1, error: 'node n2 failed',
      });
    });

    it('saving a run id again replaces its record (no duplicate in lists)', async () => {
      const store = await open(5);
      await store.save(runRecord('alpha', 'r1', T0));
      await store.save(runRecord('alpha', 'r1', T0, { status: 'stopped' }));
      const listed = await store.list();
      expect(listed.map((r) => [r.runId, r.status])).toEqual([['r1', 'stopped']]);
    });

    it('orders runs started in the same millisecond by run id, descending, as the file names sort', async () => {
      const store = await open(10);
      for (const id of ['Bb', 'a_', 'A-', 'b9']) await store.save(runRecord('same', id, T0));
      expect((await store.list({ tool: 'same' })).map((r) => r.runId)).toEqual(['b9', 'a_', 'Bb', 'A-']);
    });

    it('keeps tool names that are not safe file names apart', async () => {
      const store = await open(5);
      await store.save(runRecord('../weird tool', 'w1', T0));
      await store.save(runRecord('weird tool', 'w2', T0 + 1));
      expect((await store.list({ tool: '../weird tool' })).map((r) => r.runId)).toEqual(['w1']);
      expect((await store.get('w1')).tool).toBe('../weird tool');
    });

    it('concurrent saves of one tool keep exactly the bound, newest ones', async () => {
      const store = await open(4);
      await Promise.all(Array.from({ length: 12 }, (_, i) => store.save(runRecord('busy', `r${String(i).padStart(2, '0')}`, T0 + i * 10))));
      // One more save prunes whatever a racing save left behind.
      await store.save(runRecord('busy', 'r12', T0 + 120));
      expect((await store.list({ tool: 'busy' })).map((r) => r.runId)).toEqual(['r12', 'r11', 'r10', 'r09']);
    });

    it('an empty store lists nothing', async () => {
      const store = await open(5);
      expect(await store.list()).toEqual([]);
    });
  });
  return run;
}
