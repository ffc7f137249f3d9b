import type { Blocker, NodeState, SessionEvent, SessionStatus, StepNote, StepPointer } from './session-events';

/** How many step notes the recap keeps, and how long each may be (resume answers stay bounded). */
export const RECAP_NOTES = 8;
export const RECAP_NOTE_CHARS = 600;

export interface CheckpointMark {
  node: number;
  note?: string;
  at: string;
}

/** The last outcome, kept so a retried call (client timeout, racing process) is answered in O(1). */
export interface LastOutcome {
  kind: 'advanced' | 'blocked';
  from: number;
  node: number;
  outputHash: string;
  /** For a blocked outcome: what was said, so a retry gets the same answer. */
  blockers?: Blocker[];
  attempt?: number;
  exhausted?: boolean;
}

/**
 * A session as the snapshot holds it: metadata plus the head node's state — everything a call needs, independent of
 * how long the log is. The fold below is the only way it changes.
 */
export interface SessionState {
  sessionId: string;
  workflowId: string;
  workflowVersion: string;
  workflowHash: string;
  /** `workspace` when the session runs its workspace's own workflow. */
  workflowSource?: string;
  goal?: string;
  workspacePath?: string;
  gitBranch?: string;
  status: SessionStatus;
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
  /** The head node (where a continue token that is current points). */
  head: NodeState;
  /** Number of nodes ever made (the next node's number). */
  nodeCount: number;
  eventCount: number;
  checkpoints: CheckpointMark[];
  forks: number;
  lastOutcome?: LastOutcome;
  summary?: string;
}

/** Applies one event to a session state (pure; `undefined` before `session_started`). */
export function foldSessionEvent(state: SessionState | undefined, event: SessionEvent): SessionState {
  if (event.kind === 'session_started') {
    return {
      sessionId: event.sessionId,
      workflowId: event.workflowId,
      workflowVersion: event.workflowVersion,
      workflowHash: event.workflowHash,
      ...(event.workflowSource !== undefined ? { workflowSource: event.workflowSource } : {}),
      ...(event.goal !== undefined ? { goal: event.goal } : {}),
      ...(event.workspacePath !== undefined ? { workspacePath: event.workspacePath } : {}),
      ...(event.gitBranch !== undefined ? { gitBranch: event.gitBranch } : {}),
      status: event.next ? 'active' : 'complete',
      createdAt: event.at,
      updatedAt: event.at,
      head: { node: 0, completedSteps: [], context: event.context, current: event.next, blockedAttempts: 0, recentNotes: [] },
      nodeCount: 1,
      eventCount: 1,
      checkpoints: [],
      forks: 0,
    };
  }
  if (!state) throw new Error(`session log does not begin with session_started (found ${event.kind})`);
  const s: SessionState = { ...state, updatedAt: event.at, eventCount: state.eventCount + 1 };
  switch (event.kind) {
    case 'step_completed':
      s.head = {
        node: event.node,
        completedSteps: [...state.head.completedSteps, event.completionId],
        context: mergeContext(state.head.context, event.contextPatch),
        current: event.next,
        blockedAttempts: 0,
        recentNotes: addNote(state.head.recentNotes, event.completionId, event.title, event.notesMarkdown),
      };
      s.nodeCount = Math.max(state.nodeCount, event.node + 1);
      // A correct output clears needs_attention; completion is its own event.
      s.status = state.status === 'complete' ? 'complete' : 'active';
      s.lastOutcome = { kind: 'advanced', from: event.from, node: event.node, outputHash: event.outputHash };
      return s;
    case 'output_blocked':
      s.head = {
        ...state.head,
        context: mergeContext(state.head.context, event.contextPatch),
        blockedAttempts: event.attempt,
      };
      s.status = event.exhausted ? 'needs_attention' : state.status;
      s.lastOutcome = {
        kind: 'blocked',
        from: event.node,
        node: event.node,
        outputHash: event.outputHash,
        blockers: event.blockers,
        attempt: event.attempt,
        exhausted: event.exhausted,
      };
      return s;
    case 'checkpoint_created':
      s.checkpoints = [...state.checkpoints, { node: event.node, ...(event.note ? { note: event.note } : {}), at: event.at }];
      return s;
    case 'forked':
      s.head = event.state;
      s.forks = state.forks + 1;
      // The new branch is where the work goes on: active unless its base was already the end of the workflow.
      s.status = event.state.current ? 'active' : 'complete';
      if (s.status !== 'complete') {
        delete s.completedAt;
        delete s.summary;
      }
      s.lastOutcome = undefined;
      return s;
    case 'session_resumed':
    // A verification attempt changes nothing by itself: the step_completed or output_blocked it leads to does.
    case 'verification_run':
      return s;
    case 'session_completed':
      s.status = 'complete';
      s.completedAt = event.at;
      s.summary = event.summary;
      return s;
  }
}

/** Folds a whole list of events (the start of a log, or a snapshot's tail). */
export function foldSessionEvents(state: SessionState | undefined, events: readonly SessionEvent[]): SessionState | undefined {
  let s = state;
  for (const e of events) s = foldSessionEvent(s, e);
  return s;
}

/** Shallow merge: the agent sends only what changed; `null` is a value like any other (not a deletion). */
export function mergeContext(base: Record<string, unknown>, patch: Record<string, unknown> | undefined): Record<string, unknown> {
  return patch && Object.keys(patch).length ? { ...base, ...patch } : base;
}

/** Keeps the last {@link RECAP_NOTES} notes, each cut to {@link RECAP_NOTE_CHARS} characters. */
export function addNote(notes: readonly StepNote[], completionId: string, title: string, text: string | undefined): StepNote[] {
  if (!text || !text.trim()) return notes as StepNote[];
  const trimmed = text.length > RECAP_NOTE_CHARS ? `${text.slice(0, RECAP_NOTE_CHARS - 1)}…` : text;
  return [...notes, { completionId, title, notes: trimmed }].slice(-RECAP_NOTES);
}

/** The step pointer of a node that is done (for answers after completion). */
export function isComplete(state: SessionState): boolean {
  return state.status === 'complete' || state.head.current === null;
}

export type { StepPointer };

/** Whether two event logs hold the same events, field for field and in order (an import of a session already there). */
export function sameSessionEvents(a: readonly SessionEvent[], b: readonly SessionEvent[]): boolean {
  return a.length === b.length && a.every((e, i) => JSON.stringify(e) === JSON.stringify(b[i]));
}

/** The state a whole log folds to; a log that does not start a session is refused (an import of a broken session). */
export function foldImportedSession(events: readonly SessionEvent[]): SessionState {
  const state = events[0]?.kind === 'session_started' ? foldSessionEvents(undefined, [...events]) : undefined;
  if (!state) throw new Error('its events do not start with a session_started event');
  return state;
}
