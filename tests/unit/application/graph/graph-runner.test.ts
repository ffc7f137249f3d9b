/**
 * GraphRunner over real compiled graphs: each node type, mcp nodes through a fake client pool, the history functions
 * (sum_to_n), tool names and kept runs, telemetry. (Limits and memory bounds: graph-runner-limits.test.ts; the
 * debugger: graph-runner-debugger.test.ts.)
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  ExpressionError,
  ExternalToolError,
  InvalidArgumentsError,
  InvalidGraphError,
  NotFoundError,
} from '../../../../src/kernel/errors';
import { FakeMcpClientPool, compileYaml, linearTool, runnerFor } from './graph-test-kit';

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
