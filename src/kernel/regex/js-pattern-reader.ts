import { ASCII_FOLDING_INTRUDERS, DIGIT, NOT_DIGIT, NOT_SPACE, NOT_WORD, SPACE, withoutPoints, WORD, type Range } from './code-point-ranges';

/** A pattern construct RE2 lacks or gives another meaning; the message is the reason reported for the fallback. */
export class Unsupported extends Error {}

/** Unicode general categories, spelled the same in JS (`\p{Lu}` with `u`) and RE2. */
const GENERAL_CATEGORY = /^(?:[LMNPSZC]|Lu|Ll|Lt|Lm|Lo|Mn|Mc|Me|Nd|Nl|No|Pc|Pd|Ps|Pe|Pi|Pf|Po|Sm|Sc|Sk|So|Zs|Zl|Zp|Cc|Cf|Cs|Co|Cn)$/;
const HEX = /^[0-9a-fA-F]+$/;

/** A single character, or a class escape (a set) — what a class item can be. */
export type ClassAtom = { kind: 'char'; cp: number } | { kind: 'set'; ranges: Range[]; re2?: string };

/** The flags of a JS pattern that change how it reads or matches. */
export interface PatternFlags {
  i: boolean;
  m: boolean;
  s: boolean;
  u: boolean;
}

/**
 * Reads a JS pattern's source as JS does: characters (code points with `u`, else code units) and escapes (a character,
 * a class escape as its set, `\b`/`\B` outside classes), advancing {@link pos}. What RE2 cannot say throws
 * Unsupported. The translator (js-to-re2-pattern.ts) builds on it.
 */
export abstract class JsPatternReader {
  protected pos = 0;

  constructor(protected readonly src: string, protected readonly flags: PatternFlags) {}

  /** Reads one pattern character: a code point with `u` (or a surrogate pair, flagged), else a code unit. */
  protected readChar(): number {
    const cp = this.src.codePointAt(this.pos)!;
    if (cp > 0xffff) {
      this.pos += 2;
      return cp;
    }
    this.pos++;
    return cp;
  }

  /** Reads the escape at `pos` (a backslash): a character, a set, or (outside classes) a word boundary. */
  protected escapeAtom(inClass: false): ClassAtom | 'b' | 'B';
  protected escapeAtom(inClass: true): ClassAtom;
  protected escapeAtom(inClass: boolean): ClassAtom | 'b' | 'B' {
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
}
