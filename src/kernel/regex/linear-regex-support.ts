import { planFor, type Plan } from './regex-plan';

/** Whether a pattern runs on the linear engine, and if not, why. */
export type LinearRegexSupport = { linear: true } | { linear: false; reason: string };

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
