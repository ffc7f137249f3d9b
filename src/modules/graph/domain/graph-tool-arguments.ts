import { normalizeGraphConfig } from './normalize-graph-config';
import type { ArgTemplate } from './types';

/**
 * What an `mcp` node argument means depends on the whole file (mcpgraph's rule): once any `mcp` argument of the file
 * is an `{expr}` object (the newest format), `{expr}` objects are JSONata and `$`-strings plain text; otherwise a
 * string starting with `$` is JSONata. Adding, changing or deleting one tool can therefore change how every other tool
 * of the file reads its arguments. These functions let the authoring tools write a tool so that it means what it
 * meant on its own and every other tool keeps its meaning.
 */

/** Each tool of a parsed graph document → how its mcp nodes read their arguments (a canonical text). */
export function argumentReadings(doc: unknown): Map<string, string> {
  const readings = new Map<string, string>();
  for (const tool of normalizeGraphConfig(doc).config.tools) {
    const mcp = tool.nodes.flatMap((n) => (n.type === 'mcp' ? [[n.id, plain(n.args)]] : []));
    readings.set(tool.name, JSON.stringify(mcp));
  }
  return readings;
}

/** How a tool definition reads its arguments on its own (as the only tool of a file). */
export function readingAlone(tool: Record<string, unknown>): string | undefined {
  return argumentReadings({ tools: [tool] }).get(String(tool.name));
}

/**
 * The spellings of `tool` to try, in order: as given; with `{expr}` arguments as `$`-strings (for a file read in the
 * older rule); with JSONata `$`-strings as `{expr}` objects (for a file in the newest format). A spelling that cannot
 * say the same (an `{expr}` not starting with `$`, a literal string starting with `$`) is left out.
 */
export function toolSpellings(tool: Record<string, unknown>): Array<Record<string, unknown>> {
  const out: Array<Record<string, unknown>> = [tool];
  const dollar = mapMcpArgs(tool, toDollarString);
  if (dollar) out.push(dollar);
  const expr = mapMcpArgs(tool, toExprObject);
  if (expr) out.push(expr);
  return out;
}

const FAIL = Symbol('not representable');

function toDollarString(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toDollarString);
  if (isRecord(value)) {
    if (Object.keys(value).length === 1 && typeof value.expr === 'string') return value.expr.startsWith('$') ? value.expr : FAIL;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toDollarString(v)]));
  }
  return typeof value === 'string' && value.startsWith('$') ? FAIL : value;
}

function toExprObject(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toExprObject);
  if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toExprObject(v)]));
  return typeof value === 'string' && value.startsWith('$') ? { expr: value } : value;
}

/** `tool` with each mcp node's `args` mapped, or undefined when some argument cannot be spelled so (or nothing changed). */
function mapMcpArgs(tool: Record<string, unknown>, map: (v: unknown) => unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(tool.nodes)) return undefined;
  let changed = false;
  const nodes: unknown[] = [];
  for (const n of tool.nodes) {
    if (!isRecord(n) || n.type !== 'mcp' || n.args === undefined) {
      nodes.push(n);
      continue;
    }
    const args = map(n.args);
    if (containsFail(args)) return undefined;
    if (JSON.stringify(args) !== JSON.stringify(n.args)) changed = true;
    nodes.push({ ...n, args });
  }
  return changed ? { ...tool, nodes } : undefined;
}

function containsFail(v: unknown): boolean {
  if (v === FAIL) return true;
  if (Array.isArray(v)) return v.some(containsFail);
  return isRecord(v) ? Object.values(v).some(containsFail) : false;
}

function plain(a: ArgTemplate): unknown {
  switch (a.kind) {
    case 'literal':
      return { v: a.value };
    case 'expr':
      return { e: a.expr };
    case 'object':
      return { o: a.entries.map(([k, v]) => [k, plain(v)]) };
    case 'array':
      return { a: a.items.map(plain) };
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
