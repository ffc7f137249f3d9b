import { COMMON_OPTIONS, isNegated, optionKey, optionName, readOptionValue, takesValue, type OptionSpec } from './option-specs';
import { SERVE_OPTIONS } from './serve-options';
import type { CommonFlags } from '../resolve-config';
import type { HttpFlags } from '../resolve-http-config';

export type ServeFlags = CommonFlags & HttpFlags;

let byName: Map<string, OptionSpec> | undefined;

/**
 * `serve`'s arguments read without commander (seven modules of the server's cold start, docs/architecture.md "Cold
 * start"), for the plain case only: every argument a known option, as `--name value`, `--name=value` or a
 * `--switch`, each value valid. Anything else — `-h`, `--help`, `--version`, an unknown or misspelt option, a missing or dash-leading value,
 * a value its option refuses, a positional argument — returns undefined, and commander parses the whole line and
 * words the error or the help as for every other command. The result equals commander's opts() for the same line
 * (tests/unit/cli/serve-args.test.ts holds both to that).
 */
export function parseServeArgs(args: readonly string[]): ServeFlags | undefined {
  byName ??= new Map([...COMMON_OPTIONS, ...SERVE_OPTIONS].map((s) => [optionName(s), s]));
  const flags: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--') || arg === '--') return undefined;
    const eq = arg.indexOf('=');
    const spec = byName.get(eq < 0 ? arg.slice(2) : arg.slice(2, eq));
    if (!spec) return undefined;
    const key = optionKey(spec);
    if (!takesValue(spec)) {
      if (eq >= 0) return undefined;
      flags[key] = !isNegated(spec);
      continue;
    }
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || (eq < 0 && value.startsWith('-'))) return undefined;
    try {
      flags[key] = readOptionValue(spec, value, flags[key]);
    } catch {
      return undefined;
    }
  }
  // As commander: a negated switch not given (`--no-ui`) is true.
  for (const spec of byName.values()) if (isNegated(spec)) flags[optionKey(spec)] ??= true;
  return flags as ServeFlags;
}
