import { RE2JS } from 're2js';
import { Translator, type Translation } from './js-to-re2-pattern';
import { Unsupported } from './js-pattern-reader';
import { regexKey } from './regex-key';

/** The RE2 form of a pattern, or why it has none. */
export type Plan =
  | { linear: true; re2: RE2JS; groupCount: number; groupNames: string[]; mapLineTerminators: boolean }
  | { linear: false; reason: string };

/** Compiled plans by `flags/source`; a graph or workflow holds few distinct patterns. Default 500 entries. */
const MAX_CACHED_PLANS = 500;
const plansByKey = new Map<string, Plan>();
/** The same plans by RegExp object: jsonata constructs its engine from the same literal on every evaluation. */
const plansByRegExp = new WeakMap<RegExp, Plan>();

/** A plan for a pattern the linear engine runs. */
export type LinearPlan = Extract<Plan, { linear: true }>;

/** The plan for a RegExp, built once per `flags/source` (see {@link regexKey}) and cached. */
export function planFor(regex: RegExp): Plan {
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
