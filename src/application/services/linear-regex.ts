import { RE2JS } from 're2js';

/**
 * Regular expressions in linear time: JS patterns translated to RE2 syntax and run by re2js (a pure-JS RE2), so a
 * pattern like `/^(a+)+$/` cannot backtrack exponentially on hostile input. Used by graph JSONata expressions (as
 * jsonata's `RegexEngine`) and workflow `regex` validation rules.
 *
 * Semantics are those of the native RegExp for ordinary patterns: the same matches, groups, indexes (UTF-16) and
 * `lastIndex` behaviour, including JS's own `\s`, `.` and multiline `^`/`$` (all four line terminators). Known
 * differences, all exotic: an astral character (an emoji) is one character even without the `u` flag (`.` and `[^a]`
 * match it whole, never half a surrogate pair); with `i`, the letters ſ and K (Kelvin sign) also match s and k; a
 * capture group inside a repeated group keeps its value from an earlier iteration where JS resets it to undefined.
 *
 * Patterns RE2 cannot run — backreferences, lookahead, lookbehind, legacy octal escapes, lone surrogates without `u`,
 * counted repetition above 1000, the `y` and `v` flags — keep the native (backtracking) engine; see
 * {@link linearRegexSupport} to find them ahead of time.
 */

/** Whether a pattern runs on the linear engine, and if not, why. */
export type LinearRegexSupport = { linear: true } | { linear: false; reason: string };

/** The RE2 form of a pattern, or why it has none. */
type Plan =
  | { linear: true; re2: RE2JS; groupCount: number; groupNames: string[]; mapLineTerminators: boolean }
  | { linear: false; reason: string };

class Unsupported extends Error {}

/** Compiled plans by `flags/source`; a graph or workflow holds few distinct patterns. Default 500 entries. */
const MAX_CACHED_PLANS = 500;
const plansByKey = new Map<string, Plan>();
/** The same plans by RegExp object: jsonata constructs its engine from the same literal on every evaluation. */
const plansByRegExp = new WeakMap<RegExp, Plan>();

/**
 * Whether `new RegExp(source, flags)` runs on the linear engine (g and d change nothing here). A pattern that is not
 * a valid JS regex is reported as not linear, with the SyntaxError's message as the reason.
 */
export function linearRegexSupport(source: string, flags = ''): LinearRegexSupport {
  let plan: Plan;
  try {
    plan = planFor(new RegExp(source, flags));
  } catch (e) {
    return { linear: false, reason: (e as Error).message };
  }
  return plan.linear ? { linear: true } : { linear: false, reason: plan.reason };
}

/**
 * A RegExp look-alike that runs on RE2 when it can and on the native RegExp otherwise. It has what jsonata's
 * `RegexEngine` option needs (`new Engine(regexp)`, `lastIndex`, `exec`), plus `test`: `exec` advances `lastIndex`
 * exactly as a global (`g`) RegExp does, and leaves it alone otherwise.
 */
export class LinearRegExp {
  lastIndex = 0;
  readonly source: string;
  readonly flags: string;
  readonly global: boolean;
  /** False when the pattern runs on the native engine (see {@link fallbackReason}). */
  readonly linear: boolean;
  /** Why RE2 cannot run the pattern; undefined when it runs linearly. */
  readonly fallbackReason: string | undefined;
  private readonly plan: Plan;
  private readonly native: RegExp | undefined;

  constructor(regex: RegExp | string, flags?: string) {
    const re = typeof regex === 'string' ? new RegExp(regex, flags) : regex;
    this.source = re.source;
    this.flags = re.flags;
    this.global = re.global;
    this.plan = planFor(re);
    this.linear = this.plan.linear;
    this.fallbackReason = this.plan.linear ? undefined : this.plan.reason;
    // A private copy: a shared RegExp literal's lastIndex must not leak between users.
    this.native = this.plan.linear ? undefined : new RegExp(re.source, re.flags);
  }

  exec(input: string): RegExpExecArray | null {
    const str = String(input);
    if (this.native) {
      this.native.lastIndex = this.lastIndex;
      const result = this.native.exec(str);
      this.lastIndex = this.native.lastIndex;
      return result;
    }
    const plan = this.plan as Extract<Plan, { linear: true }>;
    const from = this.global ? toLength(this.lastIndex) : 0;
    if (from > str.length) {
      this.lastIndex = 0;
      return null;
    }
    const subject = plan.mapLineTerminators ? mapLineTerminators(str) : str;
    const matcher = plan.re2.matcher(subject);
    if (!matcher.find(from)) {
      if (this.global) this.lastIndex = 0;
      return null;
    }
    const result = [] as unknown as RegExpExecArray;
    for (let g = 0; g <= plan.groupCount; g++) {
      const start = matcher.start(g);
      result.push(start < 0 ? (undefined as unknown as string) : str.slice(start, matcher.end(g)));
    }
    result.index = matcher.start(0);
    result.input = str;
    if (plan.groupNames.length > 0) {
      const groups = Object.create(null) as Record<string, string | undefined>;
      for (const name of plan.groupNames) {
        const start = matcher.start(name);
        groups[name] = start < 0 ? undefined : str.slice(start, matcher.end(name));
      }
      result.groups = groups as Record<string, string>;
    } else {
      result.groups = undefined;
    }
    if (this.global) this.lastIndex = matcher.end(0);
    return result;
  }

  test(input: string): boolean {
    return this.exec(input) !== null;
  }

  toString(): string {
    return `/${this.source}/${this.flags}`;
  }
}

/** A class to pass as jsonata's `RegexEngine` option. */
export type RegexEngineClass = new (regex: RegExp) => LinearRegExp;

/**
 * A `RegexEngine` for jsonata that lets only the given patterns (`flags/source`, see {@link regexKey}) fall back to
 * the native engine; any other pattern RE2 cannot run — one an expression built at run time, e.g. through `$eval` of
 * agent-supplied text — is refused with an error, since it could block the event loop for good.
 */
export function regexEngineTrusting(trustedFallbacks: ReadonlySet<string>): RegexEngineClass {
  return class TrustingLinearRegExp extends LinearRegExp {
    constructor(regex: RegExp) {
      super(regex);
      if (!this.linear && !trustedFallbacks.has(regexKey(regex))) {
        throw new Error(
          `regular expression /${regex.source}/${regex.flags.replace('g', '')} needs the backtracking engine (${this.fallbackReason}) and does not appear in the graph file; refused`,
        );
      }
    }
  };
}

/** The key of a pattern in {@link regexEngineTrusting}'s set: flags without `g`, a slash, the source. */
export function regexKey(regex: RegExp): string {
  return `${regex.flags.replace('g', '')}/${regex.source}`;
}

function planFor(regex: RegExp): Plan {
  let plan = plansByRegExp.get(regex);
  if (plan) return plan;
  const key = regexKey(regex);
  plan = plansByKey.get(key);
  if (!plan) {
    plan = buildPlan(regex.source, regex.flags);
    if (plansByKey.size >= MAX_CACHED_PLANS) plansByKey.delete(plansByKey.keys().next().value as string);
    plansByKey.set(key, plan);
  }
  plansByRegExp.set(regex, plan);
  return plan;
}

function buildPlan(source: string, flags: string): Plan {
  if (flags.includes('y')) return { linear: false, reason: 'the sticky flag y' };
  if (flags.includes('v')) return { linear: false, reason: 'the unicodeSets flag v' };
  const m = flags.includes('m');
  let translation: Translation;
  try {
    translation = new Translator(source, { i: flags.includes('i'), m, s: flags.includes('s'), u: flags.includes('u') }).translate();
  } catch (e) {
    // Unsupported says what RE2 lacks; anything else would be a translator bug, where the native engine is the safe answer.
    return { linear: false, reason: e instanceof Unsupported ? e.message : `cannot be translated (${(e as Error).message})` };
  }
  let re2: RE2JS;
  try {
    re2 = RE2JS.compile(translation.pattern, (flags.includes('i') ? RE2JS.CASE_INSENSITIVE : 0) | (m ? RE2JS.MULTILINE : 0));
  } catch (e) {
    return { linear: false, reason: `RE2 cannot compile it: ${(e as Error).message}` };
  }
  return {
    linear: true,
    re2,
    groupCount: re2.groupCount(),
    groupNames: Object.keys(re2.namedGroups()),
    // RE2's multiline ^ and $ know only \n; JS's know \r, U+2028 and U+2029 too. The translator made sure the pattern
    // treats all four alike, so mapping them to \n (same length, same indexes) gives JS's answer.
    mapLineTerminators: m,
  };
}

const LINE_TERMINATOR = /[\r\u2028\u2029]/;
const LINE_TERMINATORS = /[\r\u2028\u2029]/g;

function mapLineTerminators(str: string): string {
  return LINE_TERMINATOR.test(str) ? str.replace(LINE_TERMINATORS, '\n') : str;
}

function toLength(value: unknown): number {
  const n = Math.floor(Number(value));
  return Number.isFinite(n) && n > 0 ? n : 0;
}

// ---------------------------------------------------------------------------------------------------------------
// JS pattern → RE2 pattern

type Range = readonly [number, number];

const MAX_CODE_POINT = 0x10ffff;
const DIGIT: Range[] = [[0x30, 0x39]];
const WORD: Range[] = [[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]];
/** JS's \s: WhiteSpace and LineTerminator (RE2's \s is ASCII only). */
const SPACE: Range[] = [
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a], [0x2028, 0x2029], [0x202f, 0x202f],
  [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff],
];
const TERMINATORS = [0x0a, 0x0d, 0x2028, 0x2029];
/** Unicode general categories, spelled the same in JS (`\p{Lu}` with `u`) and RE2. */
const GENERAL_CATEGORY = /^(?:[LMNPSZC]|Lu|Ll|Lt|Lm|Lo|Mn|Mc|Me|Nd|Nl|No|Pc|Pd|Ps|Pe|Pi|Pf|Po|Sm|Sc|Sk|So|Zs|Zl|Zp|Cc|Cf|Cs|Co|Cn)$/;
const HEX = /^[0-9a-fA-F]+$/;
/** A counted quantifier at lastIndex: `{n}`, `{n,}`, `{n,m}`. */
const COUNTED = /\{\d+(?:,\d*)?\}/y;

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

const NOT_DIGIT = complement(DIGIT);
const NOT_WORD = complement(WORD);
const NOT_SPACE = complement(SPACE);

function hex(cp: number): string {
  return `\\x{${cp.toString(16)}}`;
}

/** One literal code point in RE2 syntax: letters, digits, `_` and space as they are, anything else as `\x{..}`. */
function literal(cp: number): string {
  return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x5f || cp === 0x20
    ? String.fromCharCode(cp)
    : hex(cp);
}

/**
 * Without `u`, JS's `i` compares upper-cased characters and never lets a non-ASCII one (ſ U+017F, K U+212A) match an
 * ASCII one; RE2 folds them together. Taking those two out of every set (class, \W, \S, \D) keeps RE2 from
 * adding s, S, k and K to sets that merely hold them.
 */
const ASCII_FOLDING_INTRUDERS = [0x17f, 0x212a];

function withoutPoints(ranges: readonly Range[], points: readonly number[]): Range[] {
  let out: Range[] = [...ranges];
  for (const p of points) {
    out = out.flatMap(([lo, hi]): Range[] =>
      p < lo || p > hi ? [[lo, hi]] : ([[lo, p - 1], [p + 1, hi]] as Range[]).filter(([a, b]) => a <= b),
    );
  }
  return out;
}

function classOf(ranges: readonly Range[], negated = false): string {
  if (ranges.length === 0) return negated ? `[\\x{0}-\\x{10ffff}]` : `[^\\x{0}-\\x{10ffff}]`;
  return `[${negated ? '^' : ''}${ranges.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('')}]`;
}

/** How many of the four line terminators a set holds: 0 or 4 keeps multiline mapping exact. */
function terminatorsIn(ranges: readonly Range[]): number {
  return TERMINATORS.filter((t) => ranges.some(([lo, hi]) => t >= lo && t <= hi)).length;
}

interface Translation {
  pattern: string;
}

/** A single character, or a class escape (a set) — what a class item can be. */
type ClassAtom = { kind: 'char'; cp: number } | { kind: 'set'; ranges: Range[]; re2?: string };

/**
 * Translates a JS pattern (already known to be valid: the native RegExp compiled it) token by token. Anything whose
 * meaning differs in RE2 and cannot be expressed there throws Unsupported with the reason.
 */
class Translator {
  private pos = 0;
  private out = '';
  /** The last atom was an astral character written as a surrogate pair without `u` (a quantifier would split it). */
  private lastAtomSplittable = false;

  constructor(private readonly src: string, private readonly flags: { i: boolean; m: boolean; s: boolean; u: boolean }) {}

  translate(): Translation {
    const src = this.src;
    while (this.pos < src.length) {
      const c = src[this.pos]!;
      switch (c) {
        case '\\':
          this.escape();
          break;
        case '[':
          this.charClass();
          break;
        case '(':
          this.group();
          break;
        case ')':
        case '|':
          this.emit(c, false);
          this.pos++;
          break;
        case '^':
        case '$':
          this.emit(c, false);
          this.pos++;
          break;
        case '.':
          this.emit(this.flags.s ? classOf([], true) : classOf(TERMINATORS.map((t) => [t, t] as Range), true), false);
          this.pos++;
          break;
        case '*':
        case '+':
        case '?':
          this.quantifier(1);
          break;
        case '{':
          COUNTED.lastIndex = this.pos;
          if (COUNTED.test(src)) this.quantifier(COUNTED.lastIndex - this.pos);
          else this.char(this.readChar()); // Annex B: a `{` that starts no counted quantifier is itself.
          break;
        default:
          this.char(this.readChar());
      }
    }
    return { pattern: this.out };
  }

  private emit(text: string, splittable: boolean): void {
    this.out += text;
    this.lastAtomSplittable = splittable;
  }

  private quantifier(length: number): void {
    if (this.lastAtomSplittable) throw new Unsupported('a quantifier after an astral character without the u flag');
    let text = this.src.slice(this.pos, this.pos + length);
    this.pos += length;
    if (this.src[this.pos] === '?') {
      text += '?';
      this.pos++;
    }
    this.out += text;
  }

  /** Reads one pattern character: a code point with `u` (or a surrogate pair, flagged), else a code unit. */
  private readChar(): number {
    const cp = this.src.codePointAt(this.pos)!;
    if (cp > 0xffff) {
      this.pos += 2;
      return cp;
    }
    this.pos++;
    return cp;
  }

  private char(cp: number): void {
    this.checkSurrogate(cp);
    this.checkTerminator(cp);
    this.emit(literal(cp), cp > 0xffff && !this.flags.u);
  }

  private checkSurrogate(cp: number): void {
    if (!this.flags.u && cp >= 0xd800 && cp <= 0xdfff) throw new Unsupported('a lone surrogate without the u flag');
  }

  /** With `m`, line terminators are mapped to \n before matching, so the pattern must not tell them apart. */
  private checkTerminator(cp: number): void {
    if (this.flags.m && TERMINATORS.includes(cp)) {
      throw new Unsupported('a line terminator written in a multiline pattern (RE2 knows only \\n as a line end)');
    }
  }

  private checkSet(ranges: readonly Range[]): void {
    const n = terminatorsIn(ranges);
    if (this.flags.m && n !== 0 && n !== TERMINATORS.length) {
      throw new Unsupported('a character class holding some line terminators but not all in a multiline pattern');
    }
  }

  /** A set as RE2 must see it so that its case folding gives JS's answer (see ASCII_FOLDING_INTRUDERS). */
  private folded(ranges: readonly Range[]): readonly Range[] {
    return this.flags.i && !this.flags.u ? withoutPoints(ranges, ASCII_FOLDING_INTRUDERS) : ranges;
  }

  private group(): void {
    const rest = this.src.slice(this.pos, this.pos + 4);
    if (rest.startsWith('(?:')) {
      this.emit('(?:', false);
      this.pos += 3;
    } else if (rest.startsWith('(?=') || rest.startsWith('(?!')) {
      throw new Unsupported('lookahead');
    } else if (rest.startsWith('(?<=') || rest.startsWith('(?<!')) {
      throw new Unsupported('lookbehind');
    } else if (rest.startsWith('(?<')) {
      const end = this.src.indexOf('>', this.pos);
      const name = this.src.slice(this.pos + 3, end);
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Unsupported(`the group name '${name}' (RE2 takes letters, digits and _)`);
      this.emit(`(?P<${name}>`, false);
      this.pos = end + 1;
    } else if (rest.startsWith('(?')) {
      throw new Unsupported('a modifier group (?flags:...)');
    } else {
      this.emit('(', false);
      this.pos++;
    }
  }

  /** An escape outside a class. */
  private escape(): void {
    const atom = this.escapeAtom(false);
    if (atom === 'b' || atom === 'B') {
      this.emit(`\\${atom}`, false);
      return;
    }
    if (atom.kind === 'char') {
      this.char(atom.cp);
      return;
    }
    this.checkSet(atom.ranges);
    this.emit(atom.re2 ?? classOf(this.folded(atom.ranges)), false);
  }

  /** Reads the escape at `pos` (a backslash): a character, a set, or (outside classes) a word boundary. */
  private escapeAtom(inClass: false): ClassAtom | 'b' | 'B';
  private escapeAtom(inClass: true): ClassAtom;
  private escapeAtom(inClass: boolean): ClassAtom | 'b' | 'B' {
    const src = this.src;
    const c = src[this.pos + 1];
    if (c === undefined) throw new Unsupported('a trailing backslash');
    this.pos += 2;
    const char = (cp: number): ClassAtom => ({ kind: 'char', cp });
    switch (c) {
      case 'd':
        return { kind: 'set', ranges: DIGIT };
      case 'D':
        return { kind: 'set', ranges: NOT_DIGIT };
      case 'w':
        return { kind: 'set', ranges: WORD };
      case 'W':
        // With `iu`, JS counts ſ and K as word characters (they fold to s and k).
        return { kind: 'set', ranges: this.flags.i && this.flags.u ? withoutPoints(NOT_WORD, ASCII_FOLDING_INTRUDERS) : NOT_WORD };
      case 's':
        return { kind: 'set', ranges: SPACE };
      case 'S':
        return { kind: 'set', ranges: NOT_SPACE };
      case 'b':
        return inClass ? char(0x08) : 'b';
      case 'B':
        if (inClass) {
          if (this.flags.u) throw new Unsupported('\\B in a class');
          return char(0x42);
        }
        return 'B';
      case 't':
        return char(0x09);
      case 'n':
        return char(0x0a);
      case 'v':
        return char(0x0b);
      case 'f':
        return char(0x0c);
      case 'r':
        return char(0x0d);
      case '0':
        if (/[0-9]/.test(src[this.pos] ?? '')) throw new Unsupported('a legacy octal escape');
        return char(0);
      case 'c': {
        const x = src[this.pos] ?? '';
        if (!/[A-Za-z]/.test(x)) throw new Unsupported('\\c without a letter');
        this.pos++;
        return char(x.charCodeAt(0) % 32);
      }
      case 'x': {
        const digits = src.slice(this.pos, this.pos + 2);
        if (digits.length === 2 && HEX.test(digits)) {
          this.pos += 2;
          return char(parseInt(digits, 16));
        }
        return char(0x78); // Annex B: `\x` not followed by two hex digits is `x`.
      }
      case 'u':
        return char(this.unicodeEscape());
      case 'p':
      case 'P':
        if (!this.flags.u) return char(c.charCodeAt(0)); // Annex B: an identity escape.
        return this.propertyEscape(c);
      case 'k':
        throw new Unsupported('a named backreference');
      default:
        if (c >= '1' && c <= '9') throw new Unsupported('a backreference (or legacy octal escape)');
        // An identity escape: the character itself.
        this.pos -= 1;
        return char(this.readChar());
    }
  }

  /** After `\u`: `XXXX`, a `\uXXXX\uXXXX` surrogate pair or `{X…}` with `u`; otherwise `u` itself (Annex B). */
  private unicodeEscape(): number {
    const src = this.src;
    if (this.flags.u && src[this.pos] === '{') {
      const end = src.indexOf('}', this.pos);
      const cp = parseInt(src.slice(this.pos + 1, end), 16);
      this.pos = end + 1;
      return cp;
    }
    const digits = src.slice(this.pos, this.pos + 4);
    if (digits.length !== 4 || !HEX.test(digits)) return 0x75;
    this.pos += 4;
    const cp = parseInt(digits, 16);
    if (this.flags.u && cp >= 0xd800 && cp <= 0xdbff && src.startsWith('\\u', this.pos)) {
      const low = src.slice(this.pos + 2, this.pos + 6);
      const lowCp = HEX.test(low) && low.length === 4 ? parseInt(low, 16) : -1;
      if (lowCp >= 0xdc00 && lowCp <= 0xdfff) {
        this.pos += 6;
        return (cp - 0xd800) * 0x400 + (lowCp - 0xdc00) + 0x10000;
      }
    }
    return cp;
  }

  private propertyEscape(c: string): ClassAtom {
    const end = this.src.indexOf('}', this.pos);
    const name = this.src.slice(this.pos + 1, end);
    this.pos = end + 1;
    if (!GENERAL_CATEGORY.test(name)) throw new Unsupported(`the property escape \\${c}{${name}}`);
    if (this.flags.m) throw new Unsupported('a property escape in a multiline pattern');
    // Ranges are left empty: the set is passed to RE2 by name.
    return { kind: 'set', ranges: [], re2: `\\${c}{${name}}` };
  }

  private charClass(): void {
    const src = this.src;
    this.pos++;
    let negated = false;
    if (src[this.pos] === '^') {
      negated = true;
      this.pos++;
    }
    const ranges: Range[] = [];
    const named: string[] = [];
    const add = (atom: ClassAtom): void => {
      if (atom.kind === 'char') {
        this.checkSurrogate(atom.cp);
        if (atom.cp > 0xffff && !this.flags.u) throw new Unsupported('an astral character in a class without the u flag');
        ranges.push([atom.cp, atom.cp]);
      } else if (atom.re2) named.push(atom.re2);
      else ranges.push(...atom.ranges);
    };
    while (src[this.pos] !== ']') {
      if (this.pos >= src.length) throw new Unsupported('an unterminated class');
      const first = this.classAtom();
      if (src[this.pos] === '-' && src[this.pos + 1] !== ']' && this.pos + 1 < src.length) {
        this.pos++;
        const second = this.classAtom();
        if (first.kind === 'char' && second.kind === 'char') {
          this.checkSurrogate(first.cp);
          this.checkSurrogate(second.cp);
          if (!this.flags.u && (first.cp > 0xffff || second.cp > 0xffff)) {
            throw new Unsupported('an astral character in a class without the u flag');
          }
          ranges.push([first.cp, second.cp]);
        } else {
          // Annex B: a range with a class escape at either end is the two items and a literal '-'.
          add(first);
          ranges.push([0x2d, 0x2d]);
          add(second);
        }
      } else {
        add(first);
      }
    }
    this.pos++;
    if (named.length > 0 && this.flags.m) throw new Unsupported('a property escape in a multiline pattern');
    this.checkSet(ranges);
    const set = this.folded(ranges);
    if (named.length === 0) {
      this.emit(classOf(set, negated), false);
      return;
    }
    const body = set.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join('') + named.join('');
    this.emit(`[${negated ? '^' : ''}${body}]`, false);
  }

  private classAtom(): ClassAtom {
    if (this.src[this.pos] === '\\') {
      const c = this.src[this.pos + 1];
      if (c === '-') {
        this.pos += 2;
        return { kind: 'char', cp: 0x2d };
      }
      if (!this.flags.u && c !== undefined && c >= '1' && c <= '9') throw new Unsupported('a legacy octal escape in a class');
      return this.escapeAtom(true);
    }
    return { kind: 'char', cp: this.readChar() };
  }
}
