import { LinearRegExp } from './linear-regexp';
import { regexKey } from './regex-key';

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
