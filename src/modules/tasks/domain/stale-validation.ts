import type { TaskNode } from './task-graph';
import { TaskStatus } from './task-status';

/**
 * Margin added to a node's `timeout_ms` before a VALIDATING node counts as stale: a live run is killed at its
 * timeout and needs a moment (the runner's kill grace, writing the result) to record its outcome. 30 seconds.
 */
export const STALE_VALIDATION_MARGIN_MS = 30_000;

/**
 * The stale-VALIDATING recovery rule: a node VALIDATING for longer than its timeout (plus
 * {@link STALE_VALIDATION_MARGIN_MS}) belongs to a server that died mid-run. It is treated as an interrupted
 * attempt: the node may go back to IN_PROGRESS without using an attempt (nobody knows the command's verdict).
 */
export function isStaleValidation(node: TaskNode, nowMs: number, marginMs = STALE_VALIDATION_MARGIN_MS): boolean {
  if (node.status !== TaskStatus.Validating) return false;
  const since = node.validating_since ? Date.parse(node.validating_since) : NaN;
  if (Number.isNaN(since)) return true;
  return nowMs - since > node.timeout_ms + marginMs;
}
