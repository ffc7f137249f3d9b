/**
 * Sets of code points as inclusive ranges, and how to write them (and single code points) in RE2 syntax. The sets are
 * JS's meaning of `\d`, `\w`, `\s` and the line terminators, which differ from RE2's own (ASCII-only) classes.
 */

export type Range = readonly [number, number];

const MAX_CODE_POINT = 0x10ffff;
export const DIGIT: Range[] = [[0x30, 0x39]];
export const WORD: Range[] = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
/** JS's \s: WhiteSpace and LineTerminator (RE2's \s is ASCII only). */
export const SPACE: Range[] = [
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f],
  [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];
export const TERMINATORS = [0x0a, 0x0d, 0x2028, 0x2029];

function complement(ranges: readonly Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Range[] = [];
  let next = 0;
  for (const [lo, hi] of sorted) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT]);
  return out;
}

export const NOT_DIGIT = complement(DIGIT);
export const NOT_WORD = complement(WORD);
export const NOT_SPACE = complement(SPACE);

export function hex(cp: number): string {
  return `\\x{${cp.toString(16)}}`;
}

/** One literal code point in RE2 syntax: letters, digits, `_` and space as they are, anything else as `\x{..}`. */
export function literal(cp: number): string {
  return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x5f || cp === 0x20
    ? String.fromCharCode(cp)
    : hex(cp);
}

/**
 * Without `u`, JS's `i` compares upper-cased characters and never lets a non-ASCII one (ſ U+017F, K U+212A) match an
 * ASCII one; RE2 folds them together. Taking those two out of every set (class, \W, \S, \D) keeps RE2 from
 * adding s, S, k and K to sets that merely hold them.
 */
export const ASCII_FOLDING_INTRUDERS = [0x17f, 0x212a];

export function withoutPoints(ranges: readonly Range[], points: readonly number[]): Range[] {
  let out: Range[] = [...ranges];
  for (const p of points) {
    out = out.flatMap(([lo, hi]): Range[] =>
      p < lo || p > hi ? [[lo, hi]] : ([[lo, p - 1], [p + 1, hi]] as Range[]).filter(([a, b]) => a <= b),
    );
  }
  return out;
}

export function classOf(ranges: readonly Range[], negated = false): string {
  if (ranges.length === 0) return negated ? `[\\x{0}-\\x{10ffff}]` : `[^\\x{0}-\\x{10ffff}]`;
  return `[${negated ? '^' : ''}${ranges.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('')}]`;
}

/** How many of the four line terminators a set holds: 0 or 4 keeps multiline mapping exact. */
export function terminatorsIn(ranges: readonly Range[]): number {
  return TERMINATORS.filter((t) => ranges.some(([lo, hi]) => t >= lo && t <= hi)).length;
}
