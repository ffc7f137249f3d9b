import { jsonByteLength } from '../../../src/kernel/json-size';

/** jsonByteLength must agree byte for byte with JSON.stringify, and stop early past its limit. */
describe('jsonByteLength', () => {
  const bytesOf = (v: unknown) => {
    const text = JSON.stringify(v);
    return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
  };

  const seq = Object.assign([1, 2], { sequence: true });
  const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { a: 1, b: 'x' });
  const cases: Array<[string, unknown]> = [
    ['null', null],
    ['numbers', [0, -1.5, 1e21, 5e-7, NaN, Infinity, -0]],
    ['booleans', [true, false]],
    ['plain strings', ['', 'abc', 'x'.repeat(1000)]],
    ['escapes', ['"quoted" \\ back', '\n\r\t\b\f', '\u0000\u0001\u001f\u007f']],
    ['multi-byte', ['é', '€', '😀', 'a😀b€é']],
    ['lone surrogates', ['\ud800', 'x\udc00y', '\udbff\udbff']],
    ['undefined, functions and symbols in objects and arrays', { a: undefined, b: () => 1, c: Symbol('s'), d: [undefined, () => 1, Symbol('t')], e: 1 }],
    ['only skipped keys', { a: undefined }],
    ['toJSON', { when: new Date(0), custom: { toJSON: (k: string) => `key:${k}` } }],
    ['boxed primitives', [Object(1), Object('s'), Object(false)]],
    ['nested', { a: [{ b: [[], {}] }, { 'k"ey': 'v' }], 'é': { '😀': null } }],
    ['a JSONata sequence (array with extra props)', seq],
    ['a null-prototype object', nullProto],
    ['a Map and a Set', [new Map([[1, 2]]), new Set([1])]],
  ];

  it.each(cases)('%s: the same bytes as JSON.stringify', (_name, value) => {
    expect(jsonByteLength(value)).toBe(bytesOf(value));
  });

  it('undefined and a function at the top have no JSON (0 bytes)', () => {
    expect(jsonByteLength(undefined)).toBe(0);
    expect(jsonByteLength(() => 1)).toBe(0);
  });

  it('stops soon after the limit: a value far larger than it is not walked to the end', () => {
    let reads = 0;
    const huge = new Proxy(new Array(1_000_000).fill('x'.repeat(100)), {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    const size = jsonByteLength(huge, 10_000);
    expect(size).toBeGreaterThan(10_000);
    expect(size).toBeLessThan(10_000 + 200);
    expect(reads).toBeLessThan(200);
  });

  it('measures a value longer than the longest string V8 can build (JSON.stringify throws RangeError there)', () => {
    const mib = 'x'.repeat(1024 * 1024);
    const big = new Array(600).fill(mib); // 600 MiB of JSON, but 600 references to one string
    expect(jsonByteLength(big)).toBe(600 * (1024 * 1024 + 2) + 599 + 2);
  });

  it('a cycle and a BigInt are TypeErrors, as in JSON.stringify', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(() => jsonByteLength(cyclic)).toThrow(TypeError);
    expect(() => jsonByteLength({ n: BigInt(1) })).toThrow(TypeError);
    // The same object twice (not a cycle) is fine.
    const shared = { x: 1 };
    expect(jsonByteLength([shared, shared])).toBe(bytesOf([shared, shared]));
  });
});
