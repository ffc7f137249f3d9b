import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  CancelledError,
  ExecutionLimitError,
  ExpressionError,
  ExternalToolError,
  InvalidArgumentsError,
  InvalidGraphError,
  InvalidTransitionError,
  NotFoundError,
} from '../../../../src/kernel/errors';
import { FakeMcpClientPool, compileYaml, linearTool, runnerFor } from './graph-test-kit';
import type { GraphRunRecord } from '../../../../src/modules/graph/domain/graph-run-record';
import type { GraphRunStore } from '../../../../src/modules/graph/application/ports/graph-run-store';

const sumToN = fs.readFileSync(path.join(__dirname, '../../../../examples/graphs/sum_to_n.yaml'), 'utf8');

describe('GraphRunner: node types', () => {
  it('entry outputs the arguments, transform its value, exit the previous output', async () => {
    const runner = runnerFor(
      linearTool('t', `
      - id: "first"
        type: "transform"
        transform: { expr: '{ "twice": $.entry.x * 2, "seen": $.entry }' }
        next: "exit"`),
    );
    const { result, history } = await runner.executeTool('t', { x: 4 }).promise;
    expect(result).toEqual({ twice: 8, seen: { x: 4 } });
    expect(history.map((r) => [r.executionIndex, r.nodeId, r.nodeType])).toEqual([
      [0, 'entry', 'entry'],
      [1, 'first', 'transform'],
      [2, 'exit', 'exit'],
    ]);
    expect(history[0]!.output).toEqual({ x: 4 });
    for (const r of history) expect(r.duration).toBe(r.endTime - r.startTime);
  });

  it('checks the arguments against the inputSchema and names the field', async () => {
    const runner = runnerFor(sumToN);
    await expect(runner.executeTool('sum_to_n', { n: 'ten' }).promise).rejects.toThrow(
      new InvalidArgumentsError("tool 'sum_to_n': invalid arguments: n: must be number"),
    );
    await expect(runner.executeTool('sum_to_n', {}).promise).rejects.toThrow(/must have required property 'n'/);
  });

  it('switch outputs the id of the node it routes to, with the node next as default', async () => {
    const yaml = fs.readFileSync(path.join(__dirname, '../../../fixtures/graphs/nested-format.yaml'), 'utf8');
    const pool = new FakeMcpClientPool(() => ({ structuredContent: 'described' }));
    const runner = runnerFor(yaml, { mcpClientPool: pool });
    const big = await runner.executeTool('nested_classify', { x: 500 }).promise;
    expect(big.result).toEqual({ result: 'big' });
    expect(big.history.find((r) => r.nodeId === 'route')!.output).toBe('big');
    const neg = await runner.executeTool('nested_classify', { x: -1 }).promise;
    expect(neg.result).toEqual({ result: 'negative' });
    const small = await runner.executeTool('nested_classify', { x: 5 }).promise;
    expect(small.history.find((r) => r.nodeId === 'route')!.output).toBe('small');
    expect(small.result).toEqual({ result: 'described' });
    expect(pool.calls[0]!.args).toEqual({ value: 5, nested: { list: ['5', 3] } });
  });

  it('a switch with no matching condition and no default fails naming the node', async () => {
    const runner = runnerFor(linearTool('t', `
      - id: "first"
        type: "switch"
        conditions:
          - rule: { "==": [1, 2] }
            target: "exit"`));
    await expect(runner.executeTool('t', {}).promise).rejects.toThrow(
      new ExpressionError("node 'first': no switch condition matched and there is no default"),
    );
  });

  it('wraps the result as {result} when the output schema is not an object schema', async () => {
    const runner = runnerFor(linearTool('t', `
      - id: "first"
        type: "transform"
        transform: { expr: '[1, 2, 3]' }
        next: "exit"`, 'type: "array"'));
    expect((await runner.executeTool('t', {}).promise).result).toEqual({ result: [1, 2, 3] });
    expect(runner.listTools()[0]!.outputSchema).toEqual({ type: 'object', properties: { result: { type: 'array' } }, required: ['result'] });
  });

  it('refuses an unknown tool', () => {
    expect(() => runnerFor(sumToN).executeTool('nope', {})).toThrow(NotFoundError);
  });
});

describe('GraphRunner: mcp nodes', () => {
  const mcpTool = (args: string): string =>
    linearTool('m', `
      - id: "first"
        type: "mcp"
        server: "srv"
        tool: "do_it"
        args: ${args}
        next: "exit"`);

  it('outputs structuredContent when present', async () => {
    const pool = new FakeMcpClientPool(() => ({ structuredContent: { a: 1 }, content: [{ type: 'text', text: '{"b":2}' }] }));
    const runner = runnerFor(mcpTool('{ q: "$.entry.q" }'), { mcpClientPool: pool });
    expect((await runner.executeTool('m', { q: 'hi' }).promise).result).toEqual({ a: 1 });
    expect(pool.calls[0]).toEqual({ server: { name: 'srv', config: { command: 'node' } }, tool: 'do_it', args: { q: 'hi' } });
  });

  it('else the first text content parsed as JSON, else the text', async () => {
    let answer = '{"b":2}';
    const pool = new FakeMcpClientPool(() => ({ content: [{ type: 'image' }, { type: 'text', text: answer }] }));
    const runner = runnerFor(mcpTool('{}'), { mcpClientPool: pool });
    expect((await runner.executeTool('m', {}).promise).result).toEqual({ b: 2 });
    answer = 'not json';
    const run = runner.executeTool('m', {});
    await run.promise;
    expect(run.controller.getExecutionByIndex(1)!.output).toBe('not json');
  });

  it('evaluates {expr} args recursively and keeps $-strings literal in the newest format', async () => {
    const pool = new FakeMcpClientPool(() => ({ structuredContent: {} }));
    const runner = runnerFor(mcpTool('{ a: { expr: "$.entry.q & \'!\'" }, b: "$.entry.q", c: [{ expr: "1 + 1" }] }'), { mcpClientPool: pool });
    await runner.executeTool('m', { q: 'hi' }).promise;
    expect(pool.calls[0]!.args).toEqual({ a: 'hi!', b: '$.entry.q', c: [2] });
  });

  it('turns an isError result into an ExternalToolError naming node, server and tool', async () => {
    const pool = new FakeMcpClientPool(() => ({ isError: true, content: [{ type: 'text', text: 'disk on fire' }] }));
    const runner = runnerFor(mcpTool('{}'), { mcpClientPool: pool });
    const err = await runner.executeTool('m', {}).promise.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExternalToolError);
    expect((err as ExternalToolError).message).toBe("node 'first': tool 'do_it' on server 'srv' returned an error: disk on fire");
    expect((err as ExternalToolError).details).toEqual({ node: 'first', server: 'srv', tool: 'do_it' });
  });

  it('turns a thrown error into an ExternalToolError carrying the stderr tail', async () => {
    const pool = new FakeMcpClientPool(() => {
      throw new ExternalToolError('server exited with code 1', { server: 'srv', tool: 'do_it', stderrTail: 'Traceback: boom' });
    });
    const runner = runnerFor(mcpTool('{}'), { mcpClientPool: pool });
    const run = runner.executeTool('m', {});
    const err = (await run.promise.catch((e: unknown) => e)) as ExternalToolError;
    expect(err.message).toBe("node 'first': tool 'do_it' on server 'srv' failed: server exited with code 1");
    expect(err.details).toEqual({ node: 'first', server: 'srv', tool: 'do_it', stderrTail: 'Traceback: boom' });
    const state = run.controller.getState();
    expect(state.status).toBe('error');
    // The node's execution keeps the tail too (the dashboard shows it beside the failed node).
    expect(state.history[1]!.error).toEqual({ code: 'external_tool_error', message: err.message, stderrTail: 'Traceback: boom' });
  });

  it('fails clearly without a client pool', async () => {
    await expect(runnerFor(mcpTool('{}')).executeTool('m', {}).promise).rejects.toThrow(/no MCP client pool is configured/);
  });
});

describe('GraphRunner: history functions and sum_to_n', () => {
  it.each([1, 10, 1000])('sum_to_n(%i) returns n(n+1)/2', async (n) => {
    const { result } = await runnerFor(sumToN).executeTool('sum_to_n', { n }).promise;
    expect(result).toEqual({ sum: (n * (n + 1)) / 2 });
  });

  it('answers $previousNode, $executionCount, $nodeExecution (negative too) and $nodeExecutions', async () => {
    const runner = runnerFor(`
server: { name: "h", version: "1" }
tools:
  - name: "hist"
    description: "history functions"
    inputSchema: { type: "object" }
    outputSchema: { type: "object" }
    nodes:
      - { id: "entry", type: "entry", next: "step" }
      - id: "step"
        type: "transform"
        transform: { expr: '{ "i": $executionCount("step") + 1, "prev": $previousNode() }' }
        next: "loop"
      - id: "loop"
        type: "switch"
        conditions:
          - rule: { "<": [{ "var": "$.step.i" }, 4] }
            target: "step"
          - target: "report"
      - id: "report"
        type: "transform"
        transform:
          expr: >
            {
              "count": $executionCount("step"),
              "first": $nodeExecution("step", 0).i,
              "last": $nodeExecution("step", -1).i,
              "secondLast": $nodeExecution("step", -2).i,
              "outOfRange": $nodeExecution("step", 10),
              "all": $nodeExecutions("step").i,
              "prev": $previousNode(),
              "twoBack": $previousNode(2),
              "never": $executionCount("nope")
            }
        next: "exit"
      - { id: "exit", type: "exit" }
`);
    const { result, history } = await runner.executeTool('hist', {}).promise;
    expect(result).toEqual({ count: 4, first: 1, last: 4, secondLast: 3, outOfRange: null, all: [1, 2, 3, 4], prev: 'report', twoBack: { i: 4, prev: 'step' }, never: 0 });
    // First step saw the entry output as previous node; later ones saw the switch output.
    expect(history[1]!.output).toEqual({ i: 1, prev: {} });
    expect(history[3]!.output).toEqual({ i: 2, prev: 'step' });
  });

  it('keeps concurrent runs of shared compiled expressions apart', async () => {
    const runner = runnerFor(sumToN);
    const ns = [300, 7, 1000, 55, 120];
    const runs = ns.map((n) => runner.executeTool('sum_to_n', { n }));
    const results = await Promise.all(runs.map((r) => r.promise));
    results.forEach((r, i) => expect(r.result).toEqual({ sum: (ns[i]! * (ns[i]! + 1)) / 2 }));
    expect(new Set(runs.map((r) => r.executionId)).size).toBe(ns.length);
  });

  it('yields to the event loop during a long run', async () => {
    const runner = runnerFor(sumToN, { yieldEveryMs: 1 });
    const run = runner.executeTool('sum_to_n', { n: 3_000 });
    const seen: number[] = [];
    const timer = setInterval(() => seen.push(run.controller.getState().executionCount), 1);
    await run.promise;
    clearInterval(timer);
    expect(seen.some((count) => count > 0 && count < 9_003)).toBe(true);
  });
});

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

describe('GraphRunner: tool names and kept runs', () => {
  it('refuses a tool name clash between graphs and with reserved names', () => {
    const runner = runnerFor(sumToN);
    const a = compileYaml(sumToN);
    a.config.file = '/a.yaml';
    const b = compileYaml(sumToN);
    b.config.file = '/b.yaml';
    expect(() => runner.setGraphs([a, b])).toThrow(new InvalidGraphError("/b.yaml: tool 'sum_to_n' is also declared in /a.yaml"));
    expect(() => runner.setGraphs([a], ['sum_to_n'])).toThrow(/\/a.yaml: tool 'sum_to_n' clashes with workgraph's built-in tool 'sum_to_n'; this file is not served .*--only-graphs/);
    expect(runner.hasTool('sum_to_n')).toBe(true);
  });

  it('keeps only the most recent finished runs', async () => {
    const runner = runnerFor(sumToN, { recentRunLimit: 2 });
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const run = runner.executeTool('sum_to_n', { n });
      ids.push(run.executionId);
      await run.promise;
    }
    expect(runner.listExecutions().map((e) => e.executionId)).toEqual(ids.slice(1));
    expect(() => runner.getExecutionState(ids[0]!)).toThrow(NotFoundError);
    expect(runner.getExecutionState(ids[2]!).result).toEqual({ sum: 6 });
  });

  it('collects telemetry per node type and per node id when asked', async () => {
    const { telemetry } = await runnerFor(sumToN).executeTool('sum_to_n', { n: 5 }, { telemetry: true }).promise;
    expect(telemetry!.nodeExecutions).toBe(1 + 5 + 5 + 2);
    expect(telemetry!.byNodeId.increment_node!.count).toBe(5);
    expect(telemetry!.byNodeId.check_condition!.count).toBe(5);
    expect(telemetry!.byNodeType.transform!.count).toBe(6);
    expect(telemetry!.byNodeType.switch!.count).toBe(5);
    expect(telemetry!.byNodeType.entry!.count).toBe(1);
    expect(telemetry!.errorCount).toBe(0);
  });
});

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
