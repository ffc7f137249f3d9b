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

export { linearRegexSupport, type LinearRegexSupport } from './linear-regex-support';
export { LinearRegExp } from './linear-regexp';
export { regexEngineTrusting, type RegexEngineClass } from './jsonata-regex-engine';
export { regexKey } from './regex-key';
