import * as fs from 'node:fs/promises';
import type { PlanChange } from '../domain';
import type { NewPlanChange } from '../application/ports/task-graph-store';

/** History entries as log lines, each stamped with the revision of the write that carries them. */
export function historyLines(entries: readonly NewPlanChange[], revision: number): string {
  return entries.map((e) => JSON.stringify({ revision, time: e.time, actor: e.actor, action: e.action, reason: e.reason, nodes: e.nodes }) + '\n').join('');
}

/**
 * Reads a project's history file up to `upTo` bytes (the length the graph file records: bytes past it belong to a
 * write that never took effect), oldest first, keeping the entries naming one of `opts.nodes` and the latest
 * `opts.limit`. Torn lines (a crash cut them; they are always past the recorded length) are skipped.
 */
export async function readHistoryLog(file: string, upTo: number, opts: { nodes?: readonly string[]; limit?: number } = {}): Promise<PlanChange[]> {
  if (upTo <= 0) return [];
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const text = bytes.subarray(0, Math.min(upTo, bytes.length)).toString('utf8');
  const wanted = opts.nodes ? new Set(opts.nodes) : undefined;
  const out: PlanChange[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let entry: PlanChange;
    try {
      entry = JSON.parse(line) as PlanChange;
    } catch {
      continue;
    }
    if (wanted && !entry.nodes?.some((n) => wanted.has(n))) continue;
    out.push(entry);
  }
  return opts.limit !== undefined ? out.slice(-opts.limit) : out;
}
