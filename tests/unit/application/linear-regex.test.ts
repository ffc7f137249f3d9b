import jsonata from 'jsonata';
import { compileJsonata } from '../../../src/modules/graph/application/engine/jsonata-expression';
import { LinearRegExp, linearRegexSupport } from '../../../src/kernel/regex/linear-regex';

/**
 * The linear-time engine must give the native RegExp's answers for ordinary patterns: matches, indexes, groups and
 * lastIndex, directly and through JSONata's $match/$replace/$split/$contains. Patterns RE2 cannot run keep the native
 * engine and say why.
 */

type Outcome = Array<{ index: number; groups: Array<string | undefined>; named?: Record<string, string | undefined>; lastIndex: number }>;

/** Every match the way a global scan sees them (an empty match steps one unit on, as matchAll does). */
function scan(re: { lastIndex: number; exec(s: string): RegExpExecArray | null }, input: string, global: boolean): Outcome {
  const out: Outcome = [];
  re.lastIndex = 0;
  for (let guard = 0; guard < 200; guard++) {
    const m = re.exec(input);
    if (!m) break;
    out.push({ index: m.index, groups: [...m], ...(m.groups ? { named: { ...m.groups } } : {}), lastIndex: re.lastIndex });
    if (!global) break;
    if (m[0] === '') re.lastIndex++;
  }
  return out;
}

const INPUTS = [
  '',
  'abc',
  'Hello World 42',
  'foo\nbar\r\nbaz\n',
  'x\u2028y\u2029z\rw',
  'tab\there\u00a0nbsp\ufeffbom\u3000ideo',
  'aaa ab abcd',
  'ab-cd_ef.gh',
  '2024-05-17 and 1999-12-31',
  'café ÉTÉ naïve',
  'a.b*c [x]{y} /p\\q',
  'A1 b2 C3',
  'ß straße STRASSE',
];

const PATTERNS = [
  'a', 'abc', '\\d+', '\\w+', '\\s+', '\\S+', '\\W', '\\D+', '.', '.+', '^\\w', '\\w$', '^b', 'b$', '^', '$', 'a|b|c',
  '(a)|(b)', '(\\w+)\\s(\\w+)', '(?<word>[a-z]+)(?<num>\\d)?', '(\\d{4})-(\\d\\d)-(\\d\\d)', '[a-c]+', '[^a-c\\s]+',
  '[\\w-]+', '[.*+?]', '\\.', '\\[x\\]', '\\{y\\}', 'x{2}', 'a{1,2}', 'a{2,}', 'a+?', 'a*?b', '(?:ab)+', '\\bb\\w*', '\\Bb',
  'é', 'É', 'caf.', '[à-ÿ]+', '\\u00e9', '\\x41', '\\t', 'y\\b', '[\\s\\S]+', '[^]', '[]', '(a|ab)(c|bcd)(d*)', '\\\\',
  '\\/', 'a{', '}', ']', 'x*', '(a)?b', '(?:(a)|(b))c?', '[\\d.]+', '\\u{2}', '[A-Z][a-z]+', '\\cJ', '\\0', 'ß',
];

const FLAGS = ['', 'g', 'i', 'gi', 'm', 'gm', 'im', 's', 'gs', 'u', 'gu', 'iu', 'su', 'gimsu'];

describe('LinearRegExp gives the native answers', () => {
  test.each(FLAGS)('every pattern on every input, flags "%s"', (flags) => {
    let linear = 0;
    let total = 0;
    for (const pattern of PATTERNS) {
      let native: RegExp;
      try {
        native = new RegExp(pattern, flags);
      } catch {
        // Not a pattern under these flags (e.g. `\u{2}` or `a{` with u): the engine refuses it the same way.
        expect(() => new LinearRegExp(pattern, flags)).toThrow(SyntaxError);
        continue;
      }
      const engine = new LinearRegExp(pattern, flags);
      total++;
      if (engine.linear) linear++;
      for (const input of INPUTS) {
        const got = scan(engine, input, native.global);
        const want = scan(native, input, native.global);
        if (JSON.stringify(got) !== JSON.stringify(want)) {
          throw new Error(`/${pattern}/${flags} on ${JSON.stringify(input)}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
        }
      }
    }
    // The table is about the linear engine: almost every pattern must run on it (multiline patterns that name a line
    // terminator, like `\cJ`, keep the native engine).
    expect(linear).toBeGreaterThanOrEqual(total - 2);
  });

  test('a global exec starts at lastIndex, sets it to the match end, and resets it to 0 after the last match', () => {
    const re = new LinearRegExp('\\d+', 'g');
    re.lastIndex = 3;
    const m = re.exec('12 345 6')!;
    expect([m[0], m.index, re.lastIndex]).toEqual(['345', 3, 6]);
    expect(re.exec('12 345 6')![0]).toBe('6');
    expect(re.exec('12 345 6')).toBeNull();
    expect(re.lastIndex).toBe(0);
    re.lastIndex = 99;
    expect(re.exec('12')).toBeNull();
    expect(re.lastIndex).toBe(0);
  });

  test('a non-global exec ignores and keeps lastIndex', () => {
    const re = new LinearRegExp('b');
    re.lastIndex = 5;
    expect(re.exec('abcb')!.index).toBe(1);
    expect(re.lastIndex).toBe(5);
  });

  test('zero-length matches stay where they are, as the native engine leaves them', () => {
    for (const [pattern, input, from] of [['x*', 'abc', 1], ['^', 'abc', 0], ['$', 'abc', 3], ['\\b', 'ab cd', 2]] as const) {
      const engine = new LinearRegExp(pattern, 'g');
      const native = new RegExp(pattern, 'g');
      engine.lastIndex = native.lastIndex = from;
      const a = engine.exec(input)!;
      const b = native.exec(input)!;
      expect([a[0], a.index, engine.lastIndex]).toEqual([b[0], b.index, native.lastIndex]);
    }
  });

  test('groups: unmatched ones are undefined, named ones in .groups', () => {
    const m = new LinearRegExp('(?<y>\\d{4})(-(?<m>\\d\\d))?').exec('in 2024!')!;
    expect([...m]).toEqual(['2024', '2024', undefined, undefined]);
    expect(m.groups).toEqual({ y: '2024', m: undefined });
    expect(new LinearRegExp('(a)(b)?').exec('a')!.groups).toBeUndefined();
  });

  test('multiline ^ and $ know \\r, U+2028 and U+2029 as line ends, as JS does', () => {
    for (const input of ['a\r\nb', 'a\rb', 'a\u2028b', 'a\u2029b']) {
      expect(scan(new LinearRegExp('^\\w$', 'gm'), input, true)).toEqual(scan(new RegExp('^\\w$', 'gm'), input, true));
      expect(new LinearRegExp('^b$', 'm').test(input)).toBe(true);
    }
    expect(new LinearRegExp('^b$', 'm').linear).toBe(true);
  });

  test('surrogate pairs: indexes are UTF-16 units; a literal emoji, \\S+ and classes agree with native', () => {
    const input = 'a😀b 😀😀 c';
    for (const [pattern, flags] of [['😀', 'g'], ['a😀', 'g'], ['\\S+', 'g'], ['.+', 'g'], ['[^a ]+', 'g'], ['\\W+', 'g'], ['(😀)b', ''], ['.', 'gu'], ['[😀]+', 'gu'], ['\\u{1F600}', 'gu'], ['\\ud83d\\ude00', 'gu']] as const) {
      const engine = new LinearRegExp(pattern, flags);
      expect(engine.linear).toBe(true);
      expect(scan(engine, input, flags.includes('g'))).toEqual(scan(new RegExp(pattern, flags), input, flags.includes('g')));
    }
  });

  test('documented difference: without u, an emoji is still one character to the linear engine', () => {
    // The native engine would split the pair ("\ud83d"); the linear engine never yields half a character.
    expect(new LinearRegExp('.').exec('😀')![0]).toBe('😀');
    expect(new LinearRegExp('^.$').test('😀')).toBe(true);
  });

  test('catastrophic backtracking patterns finish with the right answer', () => {
    const hostile = `${'a'.repeat(60)}!`;
    expect(new LinearRegExp('^(a+)+$').test(hostile)).toBe(false);
    expect(new LinearRegExp('^(a|aa)*$').test(hostile)).toBe(false);
    expect(new LinearRegExp('^(\\w+\\s?)*$').test(hostile)).toBe(false);
    expect(new LinearRegExp('^(a+)+$').test('a'.repeat(60))).toBe(true);
  });
});

describe('patterns RE2 cannot run keep the native engine', () => {
  test.each([
    ['a(?=b)', '', 'lookahead'],
    ['a(?!b)', '', 'lookahead'],
    ['(?<=a)b', '', 'lookbehind'],
    ['(a)\\1', '', 'backreference'],
    ['(?<x>a)\\k<x>', '', 'named backreference'],
    ['a', 'y', 'sticky'],
    ['a{1001}', '', 'RE2 cannot compile'],
    ['^a\\nb$', 'm', 'line terminator'],
    ['\\ud83d', '', 'lone surrogate'],
  ])('/%s/%s: %s', (pattern, flags, why) => {
    const engine = new LinearRegExp(pattern, flags);
    expect(engine.linear).toBe(false);
    expect(engine.fallbackReason).toContain(why);
    expect(linearRegexSupport(pattern, flags)).toEqual({ linear: false, reason: engine.fallbackReason });
    const input = 'ab aa a\nb \ud83d';
    expect(scan(engine, input, false)).toEqual(scan(new RegExp(pattern, flags), input, false));
  });

  test('linearRegexSupport says yes to ordinary patterns and names a syntax error', () => {
    expect(linearRegexSupport('^(a+)+$')).toEqual({ linear: true });
    expect(linearRegexSupport('([a-z')).toEqual({ linear: false, reason: expect.stringMatching(/Invalid regular expression/) });
  });
});

describe('through JSONata', () => {
  const native = (expr: string, input: unknown) => jsonata(expr).evaluate(input);
  const linear = (expr: string, input: unknown) => compileJsonata(expr).evaluate(input, {});
  const outcome = async (run: Promise<unknown>) => {
    try {
      return { value: JSON.parse(JSON.stringify(await run) ?? 'null') as unknown };
    } catch (e) {
      return { code: (e as { code?: string }).code };
    }
  };

  const EXPRESSIONS = [
    '$match(s, /(\\w+)@(\\w+)\\.com/)',
    '$match(s, /[a-z]+/i, 2)',
    '$match(s, /^\\w+$/m)',
    '$match(s, /x*/)',
    '$replace(s, /(\\w+)@/, "<$1>")',
    '$replace(s, /\\s+/, " ")',
    '$replace(s, /o/, function($m) { $uppercase($m.match) })',
    '$replace(s, /b*/, "-")',
    '$split(s, /[,;]\\s*/)',
    '$split(s, /\\s/, 2)',
    '$contains(s, /WORLD/i)',
    '$contains(s, /^bar$/m)',
    '$contains(s, /^(a+)+$/)',
    's ~> /o(.)/',
  ];
  const SUBJECTS = ['hello world', 'ann@example.com, bob@test.com; carl@x.com', 'foo\r\nbar\nbaz', 'a😀b c', ''];

  test.each(EXPRESSIONS)('%s gives the same value or error as with native RegExp', async (expr) => {
    for (const s of SUBJECTS) {
      expect({ s, ...(await outcome(linear(expr, { s }))) }).toEqual({ s, ...(await outcome(native(expr, { s }))) });
    }
  });

  test('a regex literal RE2 cannot run is listed and still works natively', async () => {
    const compiled = compileJsonata('$match(s, /(\\w)\\1/).match ~> $join(",")');
    expect(compiled.regexFallbacks).toEqual([{ pattern: '/(\\w)\\1/', reason: 'a backreference (or legacy octal escape)' }]);
    expect(await compiled.evaluate({ s: 'aabcc' }, {})).toBe('aa,cc');
    expect(compileJsonata('$match(s, /\\d+/)').regexFallbacks).toEqual([]);
  });

  test('a pattern needing the native engine that appears only at run time ($eval) is refused; a linear one runs', async () => {
    const compiled = compileJsonata('$eval(code, $)');
    await expect(compiled.evaluate({ code: '$contains(s, /^(a|a)*\\1$/)', s: 'aaaa!' }, {})).rejects.toMatchObject({
      message: expect.stringMatching(/\/\^\(a\|a\)\*\\\\1\$\/ needs the backtracking engine \(a backreference.*does not appear in the graph file; refused/),
    });
    expect(await compiled.evaluate({ code: '$contains(s, /^(a+)+$/)', s: `${'a'.repeat(50)}!` }, {})).toBe(false);
  });
});
