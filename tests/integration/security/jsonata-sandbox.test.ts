import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { ExpressionError } from '../../../src/kernel/errors';
import { loadGraph, type GraphHost } from '../../../src/modules/graph/infrastructure';

/**
 * Issue 6 / DESIGN.md §2 (graph module): JSONata expressions cannot reach the process — JSONata has no JS `eval`,
 * its `$eval` evaluates JSONata, and its path lookup only follows an object's own properties and never a function's —
 * and every evaluation is time-bounded: a runaway expression ends the run with an `expression_error` naming the node.
 * Everything goes through loadGraph (src/infrastructure/graph/graph-host.ts), the way the server runs graph files.
 */

/** A short limit keeps the runaway cases fast; the server's default is 10 s. */
const LIMITS = { timeoutMs: 300, stackDepth: 5_000 };

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'wg-jsonata-sandbox-'));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

let fileSeq = 0;
/** A one-tool graph file: entry → the given middle nodes → exit. */
async function graphWith(middle: Array<Record<string, unknown>>, limits = LIMITS): Promise<GraphHost> {
  const file = path.join(dir, `g${fileSeq++}.json`);
  const graph = {
    server: { name: 'sandbox', version: '1.0.0' },
    tools: [
      {
        name: 'probe_tool',
        description: 'probe',
        inputSchema: { type: 'object', properties: { x: { type: 'number' }, code: { type: 'string' } } },
        outputSchema: { type: 'object' },
        nodes: [{ id: 'entry', type: 'entry', next: middle[0]!.id }, ...middle, { id: 'exit', type: 'exit' }],
      },
    ],
  };
  await fs.writeFile(file, JSON.stringify(graph));
  return loadGraph(file, { expressionLimits: limits });
}

async function probe(expr: string): Promise<{ result?: unknown; error?: ExpressionError }> {
  const host = await graphWith([{ id: 'probe', type: 'transform', transform: { expr: `{"probe": ${expr}}` }, next: 'exit' }]);
  try {
    return { result: (await host.executeTool('probe_tool', { x: 1 }).promise).result };
  } catch (e) {
    expect(e).toBeInstanceOf(ExpressionError);
    return { error: e as ExpressionError };
  } finally {
    await host.close();
  }
}

describe('JSONata cannot reach the process', () => {
  // Each of these would yield the pid (or a Function/process object) if it escaped. Lookups of non-own properties
  // and of functions' properties give nothing, so the probe field is absent.
  it.each([
    '$.entry.constructor',
    '$.entry.__proto__',
    '$.entry.x.constructor',
    '$.entry.constructor.constructor("return process.pid")()',
    '$.entry.__proto__.constructor.constructor("return process.pid")()',
    '$lookup($.entry, "constructor")',
    '$lookup($lookup($.entry, "constructor"), "constructor")',
    '$previousNode.constructor',
    '$nodeExecutions.constructor.constructor("return process")()',
    'process.pid',
    'process.mainModule',
    '$process.pid',
    '$globalThis',
    '$global.process',
    '$this',
    '$eval("process.pid")',
    '$eval("$.entry.constructor.constructor(\\"return process.pid\\")()")',
    '$eval("constructor.constructor(\\"return process\\")()", $.entry)',
  ])('%s yields nothing', async (expr) => {
    const out = await probe(expr);
    expect(out.error?.message).toBeUndefined();
    expect(out.result).toEqual({});
  });

  // Calling something that is not a JSONata function is an error naming the node, never a call into JS.
  it.each([
    'require("child_process")',
    '$require("fs")',
    '$function("return process.pid")()',
    '$Function("return process.pid")()',
    '$string.constructor("return process.pid")()',
    '($f := function(){ 1 }; $f.constructor("return process.pid")())',
  ])('%s is refused as a call of a non-function', async (expr) => {
    const out = await probe(expr);
    expect(out.result).toBeUndefined();
    expect(out.error!.code).toBe('expression_error');
    // The message names what was called (as written, `$` included) and where.
    expect(out.error!.message).toMatch(/^node 'probe': transform expression failed: Attempted to invoke a non-function \(T1006\) at \$?(require|function|Function|constructor) \(character \d+\)$/);
  });

  it('$eval of a call into JS is refused the same way, wrapped by $eval', async () => {
    const out = await probe('$eval("$require(\\"fs\\")")');
    expect(out.result).toBeUndefined();
    expect(out.error!.message).toBe(
      'node \'probe\': transform expression failed: Dynamic error evaluating the expression passed to function eval: ' +
        '"Attempted to invoke a non-function" (D3121) at $eval (character 16)',
    );
  });

  it('functions are opaque values: their text is empty and their own keys are none', async () => {
    expect((await probe('[$string($string), $string($previousNode), $type($string), $count($keys($string))]')).result).toEqual({
      probe: ['', '', 'function', 0],
    });
  });

  it('the data seen is the JSON of the run, with own keys only', async () => {
    expect((await probe('$keys($.entry)')).result).toEqual({ probe: 'x' });
    expect((await probe('$sift($.entry, function($v, $k){ true })')).result).toEqual({ probe: { x: 1 } });
  });
});

describe('JSONata evaluations are time-bounded', () => {
  async function runaway(middle: Array<Record<string, unknown>>, args: Record<string, unknown> = {}, limits = LIMITS): Promise<ExpressionError> {
    const host = await graphWith(middle, limits);
    try {
      const err = await host.executeTool('probe_tool', args).promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ExpressionError);
      return err as ExpressionError;
    } finally {
      await host.close();
    }
  }

  it('an infinite (tail-recursive) loop in a transform ends at the time limit, naming the node', async () => {
    const err = await runaway([{ id: 'spin', type: 'transform', transform: { expr: '($loop := function($i){ $loop($i + 1) }; $loop(0))' }, next: 'exit' }]);
    expect(err.code).toBe('expression_error');
    // Where the clock check lands varies with load; the message names the step it stopped at.
    expect(err.message).toMatch(
      /^node 'spin': transform expression failed: Evaluation timeout after 300 milliseconds\. Check for infinite loop \(D1012\)( at \S+ \(character \d+\))?$/,
    );
    expect(err.details).toMatchObject({ node: 'spin', expression: '($loop := function($i){ $loop($i + 1) }; $loop(0))' });
  });

  it('a very long evaluation (ten million steps) ends at the time limit', async () => {
    const err = await runaway([{ id: 'long', type: 'transform', transform: { expr: '$sum([1..10000000].($ * 2))' }, next: 'exit' }]);
    expect(err.message).toMatch(/^node 'long': transform expression failed: Evaluation timeout after 300 milliseconds.*\(D1012\)( at .*)?$/);
  });

  it('non-terminating non-tail recursion ends at the stack depth limit, naming the node', async () => {
    // A generous time limit, so on a loaded machine the depth limit is what ends it (both are bounds; this checks depth).
    const err = await runaway(
      [{ id: 'deep', type: 'transform', transform: { expr: '($f := function($i){ 1 + $f($i + 1) }; $f(0))' }, next: 'exit' }],
      {},
      { timeoutMs: 60_000, stackDepth: 500 },
    );
    expect(err.code).toBe('expression_error');
    expect(err.message).toMatch(/^node 'deep': transform expression failed: (Stack overflow.*\(D1011\)( at .*)?|stack depth exceeded.*)$/);
  });

  it('an expression the agent supplies through $eval of an argument is bounded the same way', async () => {
    const err = await runaway(
      [{ id: 'evaluator', type: 'transform', transform: { expr: '$eval($.entry.code)' }, next: 'exit' }],
      { code: '($loop := function($i){ $loop($i + 1) }; $loop(0))' },
    );
    // $eval reports the inner timeout as its own dynamic error (D3121), quoting it.
    expect(err.message).toBe(
      "node 'evaluator': transform expression failed: Dynamic error evaluating the expression passed to function eval: " +
        '"Evaluation timeout after 300 milliseconds. Check for infinite loop" (D3121) at $eval (character 6)',
    );
  });

  it('a runaway JSONata operand of a switch rule ends at the time limit, naming the switch node', async () => {
    const err = await runaway([
      {
        id: 'route',
        type: 'switch',
        conditions: [{ rule: { '==': [{ var: '($loop := function($i){ $loop($i + 1) }; $loop(0))' }, 1] }, target: 'exit' }, { target: 'exit' }],
      },
    ]);
    expect(err.message).toMatch(/^node 'route': conditions\[0\] rule failed: Evaluation timeout after 300 milliseconds.*\(D1012\)( at .*)?$/);
  });

  it('the limit applies to each evaluation: a loop of many quick evaluations is not cut by it', async () => {
    // sum_to_n style: 2,000 evaluations of a quick expression take longer than 300 ms in all, and still complete.
    const host = await graphWith([
      { id: 'inc', type: 'transform', transform: { expr: '{"i": $executionCount("inc") + 1}' }, next: 'check' },
      { id: 'check', type: 'switch', conditions: [{ rule: { '<': [{ var: '$.inc.i' }, 2000] }, target: 'inc' }, { target: 'done' }] },
      { id: 'done', type: 'transform', transform: { expr: '{"i": $.inc.i}' }, next: 'exit' },
    ]);
    try {
      expect((await host.executeTool('probe_tool', {}).promise).result).toEqual({ i: 2000 });
    } finally {
      await host.close();
    }
  });
});
