import type { SessionEvent } from './session-events';
import { foldSessionEvent, type SessionState } from './session-state';

/**
 * Why `event` cannot follow a log folded to `state` (undefined when it can): a log line that breaks the order of a
 * session is damage like a torn line — reported, never applied. A second `session_started` would silently reset the
 * session to its start; a step recorded for a node that already exists, or from a node that is not the head, would
 * rewrite history. The checks are what every writer of a log guarantees (continue, fork, checkpoint, resume).
 */
export function whyCannotFollow(state: SessionState | undefined, event: SessionEvent): string | undefined {
  if (event.kind === 'session_started') return state ? `a second session_started (the session started at ${state.createdAt})` : undefined;
  if (!state) return `${event.kind} before the session_started line`;
  const known = (n: unknown) => typeof n === 'number' && Number.isInteger(n) && n >= 0 && n < state.nodeCount;
  switch (event.kind) {
    case 'step_completed':
      if (event.from !== state.head.node) return `step_completed from point ${event.from}, but the head is point ${state.head.node}`;
      if (!(typeof event.node === 'number' && event.node >= state.nodeCount)) return `step_completed makes point ${event.node}, which exists already`;
      return undefined;
    case 'output_blocked':
    case 'verification_run':
    case 'session_completed':
      return event.node === state.head.node ? undefined : `${event.kind} at point ${event.node}, but the head is point ${state.head.node}`;
    case 'forked':
      if (!known(event.from)) return `forked from point ${event.from}, which does not exist`;
      if (!event.state || typeof event.state !== 'object') return 'forked without the state of its point';
      return undefined;
    case 'checkpoint_created':
    case 'session_resumed':
      return known(event.node) ? undefined : `${event.kind} at point ${event.node}, which does not exist`;
  }
}

/** An event that was not applied, with its position in the list folded. */
export interface OutOfOrderEvent {
  index: number;
  reason: string;
}

/**
 * Folds `events` onto `state`, skipping (and reporting) each event that cannot follow the ones before it; an event
 * whose fold throws is skipped and reported too. Pure.
 */
export function foldCheckedSessionEvents(
  state: SessionState | undefined,
  events: readonly SessionEvent[],
): { state: SessionState | undefined; applied: SessionEvent[]; skipped: OutOfOrderEvent[] } {
  let s = state;
  const applied: SessionEvent[] = [];
  const skipped: OutOfOrderEvent[] = [];
  events.forEach((e, index) => {
    const why = whyCannotFollow(s, e);
    if (why) {
      skipped.push({ index, reason: `cannot follow the line before it: ${why}; ignored` });
      return;
    }
    try {
      s = foldSessionEvent(s, e);
      applied.push(e);
    } catch (err) {
      skipped.push({ index, reason: `cannot be applied (${(err as Error).message}); ignored` });
    }
  });
  return { state: s, applied, skipped };
}
