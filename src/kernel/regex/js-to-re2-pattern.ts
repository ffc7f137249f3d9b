import {
  ASCII_FOLDING_INTRUDERS,
  classOf,
  hex,
  literal,
  TERMINATORS,
  terminatorsIn,
  withoutPoints,
  type Range,
} from './code-point-ranges';
import { JsPatternReader, Unsupported, type ClassAtom } from './js-pattern-reader';

/** A counted quantifier at lastIndex: `{n}`, `{n,}`, `{n,m}`. */
const COUNTED = /\{\d+(?:,\d*)?\}/y;

export interface Translation {
  pattern: string;
}

/**
 * Translates a JS pattern (already known to be valid: the native RegExp compiled it) token by token. Anything whose
 * meaning differs in RE2 and cannot be expressed there throws Unsupported with the reason.
 */
export class Translator extends JsPatternReader {
  private out = '';
  /** The last atom was an astral character written as a surrogate pair without `u` (a quantifier would split it). */
  private lastAtomSplittable = false;

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
