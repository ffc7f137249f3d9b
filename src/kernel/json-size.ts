/**
 * The size in UTF-8 bytes of `JSON.stringify(value)`, measured without building the text, and stopping as soon as it
 * passes `stopAbove` (the answer is then some number above `stopAbove`, not the full size). Checking a value against a
 * cap this way costs at most the cap's worth of walking and no memory — JSON.stringify of a value far over the cap (or
 * over V8's longest string, about 512 MiB) would build that text, or fail with a RangeError, before the check.
 *
 * Follows JSON.stringify: `toJSON`, boxed primitives, `undefined`/functions/symbols left out of objects and `null` in
 * arrays, non-finite numbers as `null`, well-formed escapes (`\uXXXX` for lone surrogates). A cycle is a TypeError and
 * a BigInt a TypeError, as there. `undefined` at the top (nothing to serialize) measures 0.
 */
export function jsonByteLength(value: unknown, stopAbove = Number.POSITIVE_INFINITY): number {
  return new JsonSizer(stopAbove).measure(value);
}

/**
 * V8's longest string on 64-bit builds (2^29 - 24 characters, `buffer.constants.MAX_STRING_LENGTH` on Node 20 and
 * later): no JSON text, hence no answer, can be longer. A constant so this file stays free of Node APIs (a domain may
 * use it).
 */
export const MAX_STRING_CHARS = 2 ** 29 - 24;

/**
 * The largest JSON value an answer can carry: a tool answer holds it twice (as structuredContent, and as a text block
 * whose quotes and backslashes are escaped again, at most doubling it), all in one message string. UTF-8 bytes are
 * never fewer than UTF-16 characters, so a value within this many bytes always fits.
 */
export const LARGEST_SENDABLE_RESULT_BYTES = Math.floor((MAX_STRING_CHARS - 64 * 1024) / 3);

/** From this length on, a string's size is remembered for the rest of the walk. */
const LONG_STRING = 1024;

/** Thrown inside the walk once the size passed the limit (caught in measure). */
const STOP = Symbol('stop');

class JsonSizer {
  private size = 0;
  private readonly stack = new Set<object>();
  private readonly longStrings = new Map<string, number>();

  constructor(private readonly stopAbove: number) {}

  measure(value: unknown): number {
    try {
      this.value(value, '');
    } catch (e) {
      if (e !== STOP) throw e;
    }
    return this.size;
  }

  private add(n: number): void {
    this.size += n;
    if (this.size > this.stopAbove) throw STOP;
  }

  /** Adds the value's JSON; false (nothing added) when it has none (undefined, function, symbol). */
  private value(v: unknown, key: string): boolean {
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      v = (v as { toJSON(k: string): unknown }).toJSON(key);
    }
    if (v instanceof Number || v instanceof String || v instanceof Boolean) v = v.valueOf();
    switch (typeof v) {
      case 'string':
        this.add(v.length < LONG_STRING ? stringBytes(v) : this.longStringBytes(v));
        return true;
      case 'number':
        this.add(Number.isFinite(v) ? String(v).length : 4);
        return true;
      case 'boolean':
        this.add(v ? 4 : 5);
        return true;
      case 'bigint':
        throw new TypeError('Do not know how to serialize a BigInt');
      case 'object':
        if (v === null) this.add(4);
        else this.container(v);
        return true;
      default:
        return false;
    }
  }

  /** Long strings are measured once per walk: a value often repeats the same one (JSONata shares strings). */
  private longStringBytes(s: string): number {
    let n = this.longStrings.get(s);
    if (n === undefined) {
      n = stringBytes(s);
      this.longStrings.set(s, n);
    }
    return n;
  }

  private container(o: object): void {
    if (this.stack.has(o)) throw new TypeError('Converting circular structure to JSON');
    this.stack.add(o);
    this.add(2);
    if (Array.isArray(o)) {
      for (let i = 0; i < o.length; i++) {
        if (i > 0) this.add(1);
        if (!this.value(o[i], String(i))) this.add(4);
      }
    } else {
      let first = true;
      for (const k of Object.keys(o)) {
        const before = this.size;
        // The key and colon are counted once the value turns out to have JSON; undone otherwise.
        this.size += (first ? 0 : 1) + stringBytes(k) + 1;
        if (this.value((o as Record<string, unknown>)[k], k)) {
          first = false;
          if (this.size > this.stopAbove) throw STOP;
        } else this.size = before;
      }
    }
    this.stack.delete(o);
  }
}

/** Characters whose JSON is not their plain UTF-8: quote, backslash, control characters, surrogates. */
const NEEDS_CARE = /["\\\u0000-\u001f\ud800-\udfff]/;

const NON_ASCII = /[^\u0000-\u007f]/;

/** Bytes of `JSON.stringify(s)` in UTF-8: quotes, escapes, multi-byte characters. */
function stringBytes(s: string): number {
  // Plain ASCII needing no escape (the usual case) is measured by two native regex scans, not a loop per character.
  if (!NEEDS_CARE.test(s) && !NON_ASCII.test(s)) return s.length + 2;
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      if (c === 0x22 || c === 0x5c) n += 2;
      else if (c >= 0x20) n += 1;
      // \b \t \n \f \r have two-character escapes; other control characters are \u00XX.
      else n += c === 8 || c === 9 || c === 10 || c === 12 || c === 13 ? 2 : 6;
    } else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const next = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      if (next >= 0xdc00 && next <= 0xdfff) {
        n += 4;
        i++;
      } else n += 6;
    } else if (c >= 0xdc00 && c <= 0xdfff) n += 6;
    else n += 3;
  }
  return n;
}
