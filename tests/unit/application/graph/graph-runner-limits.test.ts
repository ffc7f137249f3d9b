/**
 * GraphRunner's limits over real compiled graphs: node executions, run time, runaway expressions and recursion, and
 * the memory bounds — a run's history, the kept runs, the result and the recorded outputs. (Node types, mcp nodes,
 * history and kept runs: graph-runner.test.ts; the debugger: graph-runner-debugger.test.ts.)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ExecutionLimitError, ExpressionError, NotFoundError } from '../../../../src/kernel/errors';
import { linearTool, runnerFor } from './graph-test-kit';
import type { GraphRunRecord } from '../../../../src/modules/graph/domain/graph-run-record';
import type { GraphRunStore } from '../../../../src/modules/graph/application/ports/graph-run-store';
import type { GraphRunner } from '../../../../src/modules/graph/application/graph-runner';
import type { ExecutionHandle } from '../../../../src/modules/graph/application/engine/execution-types';

const sumToN = fs.readFileSync(path.join(__dirname, '../../../../examples/graphs/sum_to_n.yaml'), 'utf8');

describe('GraphRunner: limits and runaway expressions', () => {
  it('ends a run over maxNodeExecutions with an error naming the limit', async () => {
    const limited = sumToN.replace('# Tool Definitions', 'executionLimits:\n  maxNodeExecutions: 50\n# Tool Definitions');
    const run = runnerFor(limited).executeTool('sum_to_n', { n: 1000 });
    const err = (await run.promise.catch((e: unknown) => e)) as ExecutionLimitError;
    expect(err).toBeInstanceOf(ExecutionLimitError);
    expect(err.limit).toBe('maxNodeExecutions');
    expect(err.message).toMatch(/^tool 'sum_to_n': execution limit maxNodeExecutions \(50\) exceeded before node '/);
    expect(run.controller.getState().executionCount).toBe(50);
  });

  it('ends a run over maxExecutionTimeMs with an error naming the limit', async () => {
    const limited = sumToN.replace('# Tool Definitions', 'executionLimits:\n  maxExecutionTimeMs: 1000\n# Tool Definitions');
    let t = 0;
    const clock = { now: () => (t += 100) }; // every reading advances 100 ms
    const err = (await runnerFor(limited, { clock }).executeTool('sum_to_n', { n: 1000 }).promise.catch((e: unknown) => e)) as ExecutionLimitError;
    expect(err).toBeInstanceOf(ExecutionLimitError);
    expect(err.limit).toBe('maxExecutionTimeMs');
    expect(err.message).toMatch(/maxExecutionTimeMs \(1000 ms\) exceeded/);
  });

  it('stops a runaway JSONata expression with an ExpressionError naming the node', async () => {
    const yaml = linearTool('spin', `
      - id: "first"
        type: "transform"
        transform: { expr: '($f := function($n){ $f($n + 1) }; $f(0))' }
        next: "exit"`);
    const runner = runnerFor(yaml, {}, { timeoutMs: 200, stackDepth: 5000 });
    const err = (await runner.executeTool('spin', {}).promise.catch((e: unknown) => e)) as ExpressionError;
    expect(err).toBeInstanceOf(ExpressionError);
    expect(err.message).toMatch(/^node 'first': transform expression failed: .*timeout.*\(D1012\)( at .*)?$/i);
    expect(err.details.node).toBe('first');
  });

  it('stops runaway recursion at the stack depth limit', async () => {
    const yaml = linearTool('deep', `
      - id: "first"
        type: "transform"
        transform: { expr: '($f := function($n){ 1 + $f($n + 1) }; $f(0))' }
        next: "exit"`);
    const err = (await runnerFor(yaml, {}, { timeoutMs: 5000, stackDepth: 500 }).executeTool('deep', {}).promise.catch((e: unknown) => e)) as ExpressionError;
    expect(err).toBeInstanceOf(ExpressionError);
    expect(err.message).toMatch(/^node 'first': transform expression failed: .*\(D1011\)( at .*)?$/);
  });

  it('names the node and rule when a switch var expression fails', async () => {
    const yaml = linearTool('bad', `
      - id: "first"
        type: "switch"
        conditions:
          - rule: { "==": [{ "var": "$string($undefinedFn())" }, 1] }
            target: "exit"
          - target: "exit"`);
    const err = (await runnerFor(yaml).executeTool('bad', {}).promise.catch((e: unknown) => e)) as ExpressionError;
    expect(err).toBeInstanceOf(ExpressionError);
    expect(err.message).toMatch(/^node 'first': conditions\[0\] rule failed: /);
  });
});

describe('GraphRunner: memory bounds', () => {
  it('ends a run whose history passes the per-run cap with execution_limit naming the cap', async () => {
    const runner = runnerFor(sumToN, { maxRunHistoryBytes: 256 * 1024 });
    const run = runner.executeTool('sum_to_n', { n: 100_000 });
    const error = await run.promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ExecutionLimitError);
    expect((error as ExecutionLimitError).code).toBe('execution_limit');
    expect((error as Error).message).toMatch(/maxHistoryBytes \(256 KiB\)/);
    expect((error as Error).message).toContain('--graph-run-history-mb');
    const state = runner.getExecutionState(run.executionId);
    expect(state.status).toBe('error');
    expect(state.executionCount).toBeLessThan(20_000); // stopped early, not at the end of the loop
  }, 120_000);

  it('keeps finished runs within the retained-bytes bound, dropping the oldest first', async () => {
    // Each run of n = 1,000 holds about 0.1 MiB of history: a 256 KiB bound keeps the newest two or so.
    const runner = runnerFor(sumToN, { recentRunsMaxBytes: 256 * 1024 });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const run = runner.executeTool('sum_to_n', { n: 1_000 });
      await run.promise;
      ids.push(run.executionId);
    }
    const kept = runner.listExecutions().map((e) => e.executionId);
    expect(kept[kept.length - 1]).toBe(ids[5]);
    expect(kept.length).toBeLessThan(6);
    expect(kept).toEqual(ids.slice(ids.length - kept.length)); // the newest ones
    expect(() => runner.getExecutionState(ids[0]!)).toThrow(NotFoundError);
    expect(runner.getExecutionState(ids[5]!).history.length).toBe(2 * 1_000 + 3);
  }, 120_000);

  it('refuses a result over the result cap with execution_limit naming the cap', async () => {
    const runner = runnerFor(
      linearTool('big', `
      - id: "first"
        type: "transform"
        transform: { expr: '{ "text": $pad("", $.entry.size, "x") }' }
        next: "exit"`),
      { maxResultBytes: 64 * 1024 },
    );
    expect((await runner.executeTool('big', { size: 1_000 }).promise).result).toEqual({ text: 'x'.repeat(1_000) });
    const error = await runner.executeTool('big', { size: 100_000 }).promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ExecutionLimitError);
    expect((error as Error).message).toMatch(/maxResultBytes \(64 KiB\) exceeded: the result is over 64 KiB as JSON/);
  });

  it('answers a result longer than V8 can serialize (cap raised past it) with execution_limit, quickly and in little memory', async () => {
    // 600 items sharing one 1 MiB string: 600 MiB of JSON, past V8's longest string (512 MiB), in 1 MiB of memory.
    const runner = runnerFor(
      linearTool('huge', `
      - id: "first"
        type: "transform"
        transform: { expr: '( $s := $pad("", 1048576, "x"); { "items": $map([1..$.entry.count], function($i) { $s }) } )' }
        next: "exit"`),
      { maxResultBytes: 4096 * 1024 * 1024 },
    );
    const before = process.memoryUsage().rss;
    const run = runner.executeTool('huge', { count: 600 });
    const error = await run.promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ExecutionLimitError);
    expect((error as Error).message).toMatch(
      /maxResultBytes \(4 GiB\) exceeded: the result is over 170\.\d MiB as JSON, more than one answer can carry \(an answer holds it twice and V8's longest string is 512 MiB\)/,
    );
    // Nothing near the size of the text was built (the history keeps the output as it is, too).
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * 1024 * 1024);
    expect(runner.getExecutionState(run.executionId).history.length).toBe(3);
  }, 120_000);

  it('records a run with huge outputs within the outputs budget (the recorder never builds their text)', async () => {
    const saved: GraphRunRecord[] = [];
    const store: GraphRunStore = { save: async (r) => void saved.push(r), list: async () => [], get: async () => saved[0]! };
    const runner = runnerFor(
      linearTool('huge', `
      - id: "first"
        type: "transform"
        transform: { expr: '( $s := $pad("", 1048576, "x"); { "items": $map([1..$.entry.count], function($i) { $s }) } )' }
        next: "exit"`),
      { runStore: store, liveRecordMs: 0 },
    );
    await runner.executeTool('huge', { count: 600 }).promise.catch(() => undefined);
    await runner.executeTool('huge', { count: 2 }).promise;
    await new Promise((r) => setTimeout(r, 100));
    expect(saved).toHaveLength(2);
    const [big, small] = saved;
    const bigOutputs = big!.executions.map((e) => e.output);
    expect(bigOutputs).toContainEqual({ outputNotRecorded: 'over 32 MiB of outputs in this record' });
    expect(JSON.stringify(big).length).toBeLessThan(1024 * 1024);
    expect(small!.executions.find((e) => e.nodeId === 'first')!.output).toEqual({ items: ['x'.repeat(1048576), 'x'.repeat(1048576)] });
  }, 120_000);
});

describe('GraphRunner: records written behind', () => {
  /** A run store whose writes finish only when the test lets them: a disk that fell behind. */
  function slowStore(): { store: GraphRunStore; saved: GraphRunRecord[]; pending: () => number; release: () => void } {
    const saved: GraphRunRecord[] = [];
    const waiting: Array<() => void> = [];
    const store: GraphRunStore = {
      save: (r) => new Promise<void>((resolve) => waiting.push(() => (saved.push(r), resolve()))),
      list: async () => [],
      get: async () => saved[0]!,
    };
    return { store, saved, pending: () => waiting.length, release: () => waiting.splice(0).forEach((w) => w()) };
  }
  /** Whether the run's answer came within 100 ms of the run's end. */
  async function answered(runner: GraphRunner, run: ExecutionHandle): Promise<boolean> {
    while (['not_started', 'running'].includes(runner.getExecutionState(run.executionId).status)) await new Promise((r) => setTimeout(r, 5));
    return Promise.race([run.promise.then(() => true, () => true), new Promise<boolean>((r) => setTimeout(() => r(false), 100))]);
  }

  it('answers at once while the unwritten records hold less than the kept-runs bound', async () => {
    const slow = slowStore();
    const runner = runnerFor(sumToN, { runStore: slow.store, liveRecordMs: 0, recentRunsMaxBytes: 64 * 1024 * 1024 });
    for (let i = 0; i < 5; i++) expect(await answered(runner, runner.executeTool('sum_to_n', { n: 1_000 }))).toBe(true);
    await new Promise((r) => setTimeout(r, 20)); // the last final save starts on a later turn
    expect(slow.pending()).toBe(5); // none written yet, every answer given
    slow.release();
    await new Promise((r) => setTimeout(r, 50));
    expect(slow.saved).toHaveLength(5);
  }, 60_000);

  it('holds a run\'s answer until its record is written once the unwritten records pass the bound', async () => {
    // Each run of n = 1,000 holds 128 KiB of history; the bound is 256 KiB: the third unwritten record is over it.
    const slow = slowStore();
    const runner = runnerFor(sumToN, { runStore: slow.store, liveRecordMs: 0, recentRunsMaxBytes: 256 * 1024 });
    const answers: boolean[] = [];
    let held: ExecutionHandle['promise'] | undefined;
    for (let i = 0; i < 4 && !held; i++) {
      const run = runner.executeTool('sum_to_n', { n: 1_000 });
      const ok = await answered(runner, run);
      answers.push(ok);
      if (!ok) held = run.promise;
    }
    expect(answers.slice(0, -1).every(Boolean)).toBe(true);
    expect(answers[answers.length - 1]).toBe(false); // held: the records behind it hold too much
    expect(answers).toEqual([true, true, false]);
    slow.release();
    expect((await held!).result).toEqual({ sum: 500_500 });
    expect(slow.saved).toHaveLength(answers.length);
  }, 60_000);
});
