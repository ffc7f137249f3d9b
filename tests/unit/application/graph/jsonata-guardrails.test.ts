import { CLOCK_CHECK_EVERY_STEPS, compileJsonata } from '../../../../src/modules/graph/application/engine/jsonata-expression';

// The time limit reads the clock only every CLOCK_CHECK_EVERY_STEPS evaluation steps (see guardrailOptions); these
// checks make sure the sampled check still stops a runaway expression, names the real limit, and never fires early.
describe('JSONata guardrails with a sampled clock', () => {
  // Not a tail call (`1 + ...`), so every call nests deeper.
  const runaway = "($f := function($n) { $n < 0 ? 0 : 1 + $f($n + 1) }; $f(0))";
  const busy = '$reduce([1..20000], function($a, $v) { $a + $v }, 0)';

  it('a runaway loop ends with the timeout error naming the limit in milliseconds', async () => {
    const expr = compileJsonata('( $loop := function($i) { $i >= 0 ? $loop($i + 1) : 0 }; $loop(0) )', { timeoutMs: 200, stackDepth: 1_000_000 });
    await expect(expr.evaluate({}, {})).rejects.toMatchObject({ code: 'D1012', message: expect.stringContaining('200 milliseconds') });
  }, 60_000);

  it('the depth limit is still checked at every step', async () => {
    const expr = compileJsonata(runaway, { timeoutMs: 60_000, stackDepth: 300 });
    await expect(expr.evaluate({}, {})).rejects.toMatchObject({ code: 'D1011' });
  }, 60_000);

  it('a long but finite evaluation under a generous limit is never stopped early, however many steps it takes', async () => {
    expect(CLOCK_CHECK_EVERY_STEPS).toBeGreaterThan(1);
    const expr = compileJsonata(busy, { timeoutMs: 120_000, stackDepth: 5_000 });
    // Many evaluations of the same compiled expression share its options object: run them at once.
    const results = await Promise.all([1, 2, 3].map(() => expr.evaluate({}, {})));
    expect(results).toEqual([200010000, 200010000, 200010000]);
  }, 120_000);

  it('limits of 0 turn the guardrails off (what the benchmark floor uses)', async () => {
    const expr = compileJsonata('1 + 2', { timeoutMs: 0, stackDepth: 0 });
    await expect(expr.evaluate({}, {})).resolves.toBe(3);
  });
});

describe('JSONata runtime errors name what failed', () => {
  const { toExpressionError } = jest.requireActual('../../../../src/modules/graph/application/engine/jsonata-expression') as typeof import('../../../../src/modules/graph/application/engine/jsonata-expression');
  const failure = async (source: string) => {
    const err = await compileJsonata(source).evaluate({ a: 1 }, {}).catch((e: unknown) => e);
    return toExpressionError(err, 'n', source).message;
  };

  it.each([
    ['$notAFunction(1)', "node 'n': expression failed: Attempted to invoke a non-function (T1006) at $notAFunction (character 14)"],
    ['$sum("a")', `node 'n': expression failed: Argument 1 of function "sum" must be an array of "numbers" (T0412) at $sum (character 5)`],
    ['$.a + "x"', `node 'n': expression failed: The right side of the "+" operator must evaluate to a number (T2002) at + (character 5)`],
  ])('%s', async (source, message) => {
    expect(await failure(source)).toBe(message);
  });
});
