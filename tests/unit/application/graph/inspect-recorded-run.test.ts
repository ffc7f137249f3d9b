/**
 * graph_inspect of a run this process does not hold: answered from the run store's record (a run of another process
 * sharing the data dir), as the engine that ran it answers — a finished run, a run still going (its live record), time
 * travel over the record — and within the caller's reach. Two real runners share one file run store in a temp dir.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileGraphRunStore } from '../../../../src/modules/graph/infrastructure/file-graph-run-store';
import { InspectGraphExecution, RUN_GRAPH_META_KEY } from '../../../../src/modules/graph/application/use-cases/inspect-graph-execution';
import { ToolResultWithMeta } from '../../../../src/kernel/tools/tool-definition';
import { noopCallContext } from '../../../../src/kernel/call-context';
import type { GraphRunner } from '../../../../src/modules/graph/application/graph-runner';
import { runnerFor } from './graph-test-kit';

const LOOP = `
server: { name: "t", version: "1" }
tools:
  - name: "loop"
    description: "counts to n"
    inputSchema: { type: "object" }
    outputSchema: { type: "object" }
    nodes:
      - { id: "entry", type: "entry", next: "step" }
      - id: "step"
        type: "transform"
        transform: { expr: '{ "i": $executionCount("step") + 1, "n": $.entry.n }' }
        next: "check"
      - id: "check"
        type: "switch"
        conditions:
          - { rule: { "<": [{ "var": "$.step.i" }, { "var": "$.step.n" }] }, target: "step" }
          - { target: "done" }
      - { id: "done", type: "transform", transform: { expr: '{ "count": $.step.i }' }, next: "exit" }
      - { id: "exit", type: "exit" }
`;

const alice = { name: 'alice', scopes: ['read', 'write'] as never };
const bob = { name: 'bob', scopes: ['read', 'write'] as never };
let dir: string;
let store: FileGraphRunStore;
let here: GraphRunner;
let there: GraphRunner;

/** graph_inspect as the process `runner` answers it. */
function inspector(runner: GraphRunner) {
  return new InspectGraphExecution(runner, runner, store);
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-inspect-recorded-'));
  store = new FileGraphRunStore(dir);
  here = runnerFor(LOOP, { runStore: store, liveRecordMs: 20 });
  there = runnerFor(LOOP);
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function recorded(runId: string, status: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await store.get(runId).catch(() => undefined);
    if (r?.status === status) return;
    await new Promise((res) => setTimeout(res, 10));
  }
  throw new Error(`run ${runId} never recorded as ${status}`);
}

test("a finished run another process ran is answered from its record as that process's engine answers it", async () => {
  const run = here.executeTool('loop', { n: 3 }, { actor: { name: 'alice' } });
  await run.promise;
  await recorded(run.executionId, 'completed');
  const ctx = noopCallContext(undefined, alice);
  const own = await inspector(here).execute({ executionId: run.executionId }, ctx);
  const theirs = await inspector(there).execute({ executionId: run.executionId }, ctx);
  expect(theirs).toEqual(own);
  expect(theirs).toMatchObject({ status: 'finished', result: { count: 3 }, executionCount: 9, historyTotal: 9, currentNodeId: null });
  // A page from an execution index, and time travel over the record.
  const page = (await inspector(there).execute({ executionId: run.executionId, offset: 4, limit: 2 }, ctx)) as { history: Array<{ executionIndex: number }> };
  expect(page.history.map((e) => e.executionIndex)).toEqual([4, 5]);
  expect(await inspector(there).execute({ executionId: run.executionId, executionIndex: 4 }, ctx)).toEqual(await inspector(here).execute({ executionId: run.executionId, executionIndex: 4 }, ctx));
  await expect(inspector(there).execute({ executionId: run.executionId, executionIndex: 40 }, ctx)).rejects.toThrow(/has no recorded node execution 40/);
  // For a view: the tool as the process serves it, with the run's path over the recorded executions.
  const meta = (await inspector(there).execute({ executionId: run.executionId }, { ...ctx, showsViews: true })) as ToolResultWithMeta;
  expect(meta).toBeInstanceOf(ToolResultWithMeta);
  expect((meta.meta[RUN_GRAPH_META_KEY] as { visits: Record<string, number> }).visits).toEqual({ entry: 1, step: 3, check: 3, done: 1, exit: 1 });
});

test("a run still going elsewhere is answered from its live record; another identity is told it does not exist", async () => {
  const run = here.executeTool('loop', { n: 3 }, { actor: { name: 'alice' }, breakpoints: ['done'] });
  await recorded(run.executionId, 'paused');
  const live = await inspector(there).execute({ executionId: run.executionId }, noopCallContext(undefined, alice));
  expect(live).toMatchObject({ status: 'paused', currentNodeId: 'done', executionCount: 7 });
  expect(live).not.toHaveProperty('endTime');
  expect(live).not.toHaveProperty('result');
  await expect(inspector(there).execute({ executionId: run.executionId }, noopCallContext(undefined, bob))).rejects.toThrow(`execution '${run.executionId}' not found (only the last runs are kept)`);
  await expect(inspector(there).execute({ executionId: 'nope-1-2' }, noopCallContext(undefined, alice))).rejects.toThrow("execution 'nope-1-2' not found");
  here.getExecution(run.executionId)!.resume();
  await run.promise;
  await recorded(run.executionId, 'completed');
  expect(await inspector(there).execute({ executionId: run.executionId }, noopCallContext(undefined, alice))).toMatchObject({ status: 'finished', result: { count: 3 } });
});
