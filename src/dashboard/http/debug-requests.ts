import type { DebugControl, DebugStart } from '../dashboard-backend';
import { httpError } from './error-status';

/** The body of POST /api/graphs/:tool/debug: `{args?, breakpoints?, startPaused?}`, each checked, nothing else taken. */
export function debugStartBody(body: unknown): DebugStart {
  const b = object(body);
  const known = new Set(['args', 'breakpoints', 'startPaused']);
  const extra = Object.keys(b).find((k) => !known.has(k));
  if (extra !== undefined) throw httpError(400, 'invalid_arguments', `${extra}: not a field of a debug start (expected args, breakpoints, startPaused)`);
  if (b.startPaused !== undefined && typeof b.startPaused !== 'boolean') throw httpError(400, 'invalid_arguments', 'startPaused: expected a boolean');
  return {
    args: b.args ?? {},
    ...(b.breakpoints !== undefined ? { breakpoints: nodeIdList(b.breakpoints, 'breakpoints') } : {}),
    ...(b.startPaused !== undefined ? { startPaused: b.startPaused as boolean } : {}),
  };
}

/** The body of POST /api/debug/:run/breakpoints: `{nodeIds}` (an empty list clears them). */
export function breakpointsBody(body: unknown): DebugControl {
  return { action: 'breakpoints', nodeIds: nodeIdList(object(body).nodeIds, 'nodeIds') };
}

function object(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw httpError(400, 'invalid_arguments', 'body: expected a JSON object');
  return body as Record<string, unknown>;
}

function nodeIdList(v: unknown, field: string): string[] {
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) throw httpError(400, 'invalid_arguments', `${field}: expected an array of node ids (strings)`);
  return v as string[];
}
