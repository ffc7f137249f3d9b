import { planFor, type LinearPlan, type Plan } from './regex-plan';

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
    const plan = this.plan as LinearPlan;
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

const LINE_TERMINATOR = /[\r\u2028\u2029]/;
const LINE_TERMINATORS = /[\r\u2028\u2029]/g;

function mapLineTerminators(str: string): string {
  return LINE_TERMINATOR.test(str) ? str.replace(LINE_TERMINATORS, '\n') : str;
}

function toLength(value: unknown): number {
  const n = Math.floor(Number(value));
  return Number.isFinite(n) && n > 0 ? n : 0;
}
