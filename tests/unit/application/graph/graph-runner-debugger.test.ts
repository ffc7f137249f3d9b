/**
 * GraphRunner's debugger controller over real compiled graphs: breakpoints, pause/step/resume/stop, an aborted signal,
 * several debugged runs at once, time travel over a finished run, and the hooks' order and arguments. (Node types,
 * mcp nodes, history and kept runs: graph-runner.test.ts; limits and memory bounds: graph-runner-limits.test.ts.)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CancelledError, InvalidTransitionError, NotFoundError } from '../../../../src/kernel/errors';
import { linearTool, runnerFor } from './graph-test-kit';

const sumToN = fs.readFileSync(path.join(__dirname, '../../../../examples/graphs/sum_to_n.yaml'), 'utf8');

describe('GraphRunner: debugger', () => {
  const waitFor = async (cond: () => boolean): Promise<void> => {
    for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 1));
    if (!cond()) throw new Error('condition not reached');
  };

  it('pauses at a breakpoint, steps one node at a time, and resumes to the end', async () => {
    const paused: Array<[number, string]> = [];
    let resumed = 0;
    const runner = runnerFor(sumToN);
    const { promise, controller } = runner.executeTool('sum_to_n', { n: 3 }, {
      breakpoints: ['check_condition'],
      hooks: { onPause: (i, id) => void paused.push([i, id]), onResume: () => void resumed++ },
    });
    await waitFor(() => controller.getState().status === 'paused');
    let state = controller.getState();
    expect(state.currentNodeId).toBe('check_condition');
    expect(state.executionCount).toBe(2);
    expect(paused).toEqual([[2, 'check_condition']]);

    await controller.step(); // runs check_condition, pauses before increment_node
    state = controller.getState();
    expect(state.status).toBe('paused');
    expect(state.currentNodeId).toBe('increment_node');
    expect(state.history[2]!.output).toBe('increment_node');

    await controller.step(); // runs increment_node, then the breakpoint pauses before check_condition
    expect(controller.getState().currentNodeId).toBe('check_condition');
    expect(controller.getState().context.increment_node).toEqual({ counter: 2, sum: 3, target: 3 });

    controller.clearBreakpoints();
    expect(controller.getBreakpoints()).toEqual([]);
    controller.resume();
    expect((await promise).result).toEqual({ sum: 6 });
    expect(controller.getState().status).toBe('finished');
    expect(resumed).toBe(3);
  });

  it('starts paused before the entry node when asked, and step() is refused unless paused', async () => {
    const runner = runnerFor(sumToN);
    const { promise, controller } = runner.executeTool('sum_to_n', { n: 2 }, { startPaused: true });
    await waitFor(() => controller.getState().status === 'paused');
    expect(controller.getState().currentNodeId).toBe('entry_sum');
    expect(controller.getState().executionCount).toBe(0);
    await controller.step();
    expect(controller.getState().history.map((r) => r.nodeId)).toEqual(['entry_sum']);
    controller.resume();
    await promise;
    await expect(controller.step()).rejects.toBeInstanceOf(InvalidTransitionError);
  });

  it('pauses when onNodeStart returns false, and setBreakpoints changes breakpoints mid-run', async () => {
    const runner = runnerFor(sumToN);
    let exitSeen = false;
    const { promise, controller } = runner.executeTool('sum_to_n', { n: 4 }, {
      hooks: { onNodeStart: (_i, id) => (id === 'exit_sum' && !exitSeen ? ((exitSeen = true), false) : true) },
    });
    await waitFor(() => controller.getState().status === 'paused');
    expect(controller.getState().currentNodeId).toBe('exit_sum');
    controller.setBreakpoints(['exit_sum_final']);
    controller.resume();
    await waitFor(() => controller.getState().currentNodeId === 'exit_sum_final' && controller.getState().status === 'paused');
    controller.resume();
    expect((await promise).result).toEqual({ sum: 10 });
  });

  it('pause() takes effect promptly during a long run, and stop() ends it with CancelledError', async () => {
    const runner = runnerFor(sumToN);
    const { promise, controller } = runner.executeTool('sum_to_n', { n: 1_000_000 });
    await waitFor(() => controller.getState().executionCount > 100);
    controller.pause();
    await waitFor(() => controller.getState().status === 'paused');
    const at = controller.getState().executionCount;
    await new Promise((r) => setTimeout(r, 20));
    expect(controller.getState().executionCount).toBe(at);
    controller.stop();
    await expect(promise).rejects.toBeInstanceOf(CancelledError);
    expect(controller.getState().status).toBe('stopped');
    expect(controller.getState().error!.code).toBe('cancelled');
  });

  it('stops when the caller aborts the signal', async () => {
    const ac = new AbortController();
    const { promise, controller } = runnerFor(sumToN).executeTool('sum_to_n', { n: 1_000_000 }, { signal: ac.signal });
    await waitFor(() => controller.getState().executionCount > 10);
    ac.abort();
    await expect(promise).rejects.toThrow(/was stopped/);
  });

  it('runs several debugged executions at once, each with its own controller', async () => {
    const runner = runnerFor(sumToN);
    const a = runner.executeTool('sum_to_n', { n: 10 }, { breakpoints: ['exit_sum'] });
    const b = runner.executeTool('sum_to_n', { n: 20 });
    expect((await b.promise).result).toEqual({ sum: 210 });
    await waitFor(() => a.controller.getState().status === 'paused');
    expect(a.controller.getState().context.increment_node).toEqual({ counter: 10, sum: 55, target: 10 });
    a.controller.resume();
    expect((await a.promise).result).toEqual({ sum: 55 });
  });

  it('reconstructs the context each node saw (time travel) on a finished run', async () => {
    const seen = new Map<number, Record<string, unknown>>();
    const runner = runnerFor(sumToN);
    const { promise, executionId } = runner.executeTool('sum_to_n', { n: 6 }, {
      hooks: { onNodeStart: (i, _id, _node, ctx) => void seen.set(i, JSON.parse(JSON.stringify({ ...ctx }))) },
    });
    const { history } = await promise;
    expect(seen.size).toBe(history.length);
    for (const [i, ctx] of seen) expect(runner.getContextForExecution(executionId, i)).toEqual(ctx);
    expect(runner.getExecutionByIndex(executionId, 3).nodeId).toBe('increment_node');
    expect(() => runner.getContextForExecution(executionId, history.length + 1)).toThrow(NotFoundError);
  });

  it('at a breakpoint the run pauses before onNodeStart fires for that node (mcpgraph order)', async () => {
    const events: string[] = [];
    const runner = runnerFor(sumToN);
    const { promise, controller } = runner.executeTool('sum_to_n', { n: 1 }, {
      breakpoints: ['check_condition'],
      hooks: {
        onPause: (i, id, ctx) => {
          events.push(`pause ${i} ${id} counter=${(ctx.increment_node as { counter: number }).counter}`);
          // The hook sees the run paused, and the node it holds before.
          expect(controller.getState().status).toBe('paused');
          controller.resume();
        },
        onNodeStart: (i, id) => void events.push(`start ${i} ${id}`),
        onResume: () => void events.push('resume'),
      },
    });
    expect((await promise).result).toEqual({ sum: 1 });
    expect(events).toEqual([
      'start 0 entry_sum',
      'start 1 increment_node',
      'pause 2 check_condition counter=1',
      'resume',
      'start 2 check_condition',
      'start 3 exit_sum',
      'start 4 exit_sum_final',
    ]);
  });

  it('stop() sets the status to stopped at once, paused or running', async () => {
    const runner = runnerFor(sumToN);
    const paused = runner.executeTool('sum_to_n', { n: 3 }, { breakpoints: ['check_condition'] });
    await waitFor(() => paused.controller.getState().status === 'paused');
    paused.controller.stop();
    expect(paused.controller.getState().status).toBe('stopped');
    await expect(paused.promise).rejects.toBeInstanceOf(CancelledError);
    expect(paused.controller.getState().status).toBe('stopped');

    let stopNow: (() => void) | undefined;
    const running = runner.executeTool('sum_to_n', { n: 50 }, {
      hooks: {
        onNodeComplete: (i) => {
          if (i === 10) {
            stopNow!();
            // Still inside the run's own hook: the status already says stopped.
            expect(running.controller.getState().status).toBe('stopped');
          }
        },
      },
    });
    stopNow = () => running.controller.stop();
    await expect(running.promise).rejects.toBeInstanceOf(CancelledError);
    expect(running.controller.getState().status).toBe('stopped');
    expect(running.controller.getState().history.length).toBe(11);
  });

  it('hooks get the node input (the context it saw), its output and the context on errors', async () => {
    const completes: Array<{ id: string; input: unknown; output: unknown }> = [];
    const errors: Array<{ id: string; context: unknown }> = [];
    const yaml = linearTool('t', `
      - id: "first"
        type: "transform"
        transform: { expr: '{"v": $.entry.x * 2}' }
        next: "fail"
      - id: "fail"
        type: "transform"
        transform: { expr: '$error("nope")' }
        next: "exit"`);
    const run = runnerFor(yaml).executeTool('t', { x: 21 }, {
      hooks: {
        onNodeComplete: (_i, id, _node, input, output, durationMs) => {
          expect(typeof durationMs).toBe('number');
          completes.push({ id, input: JSON.parse(JSON.stringify(input)), output });
        },
        onNodeError: (_i, id, _node, _e, context) => void errors.push({ id, context: JSON.parse(JSON.stringify(context)) }),
      },
    });
    await expect(run.promise).rejects.toThrow(/nope/);
    expect(completes).toEqual([
      { id: 'entry', input: {}, output: { x: 21 } },
      { id: 'first', input: { entry: { x: 21 } }, output: { v: 42 } },
    ]);
    expect(errors).toEqual([{ id: 'fail', context: { entry: { x: 21 }, first: { v: 42 } } }]);
  });

  it('calls onNodeComplete for each node and onNodeError for the failing one', async () => {
    const events: string[] = [];
    const yaml = linearTool('t', `
      - id: "first"
        type: "transform"
        transform: { expr: '$error("nope")' }
        next: "exit"`);
    const run = runnerFor(yaml).executeTool('t', {}, {
      hooks: {
        onNodeComplete: (i, id) => void events.push(`done ${i} ${id}`),
        onNodeError: (i, id, _n, e) => void events.push(`error ${i} ${id} ${e.code}`),
      },
    });
    await expect(run.promise).rejects.toThrow(/node 'first': transform expression failed: nope/);
    expect(events).toEqual(['done 0 entry', 'error 1 first expression_error']);
  });
});
