/**
 * The key of a pattern: flags without `g`, a slash, the source. It names a pattern in the plan cache and in
 * {@link regexEngineTrusting}'s set of trusted fallbacks.
 */
export function regexKey(regex: RegExp): string {
  return `${regex.flags.replace('g', '')}/${regex.source}`;
}
