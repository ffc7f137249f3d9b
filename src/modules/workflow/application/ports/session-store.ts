import type { SessionEvent, SessionStartedEvent } from '../../domain/sessions/session-events';
import type { SessionState } from '../../domain/sessions/session-state';
import type { SessionSummary } from '../../domain/sessions/resume-ranking';
import type { RunningVerification } from '../../domain/sessions/running-verification';

/** A log line that could not be read (a line cut by a crash, bytes that are not an event): reported, never folded. */
export interface DamagedLine {
  /** 1-based line number in the log. */
  line: number;
  /** The start of the line (at most 200 characters). */
  excerpt: string;
  reason: string;
}

export interface SessionHistory {
  events: SessionEvent[];
  damaged: DamagedLine[];
}

/** What a change made under the session's lock decides: the events to append (possibly none) and the answer. */
export interface SessionChange<T> {
  events: SessionEvent[];
  result: T;
}

export interface SessionListFilter {
  statuses?: readonly string[];
  workflowId?: string;
  workspacePath?: string;
}

/**
 * Where sessions live: an append-only event log per session, a snapshot of its state (so a call costs O(1) in the
 * log's length), the workflow text pinned at start, and an index for listing and resume. Adapters: files
 * (infrastructure/sessions/file-session-store.ts); every adapter passes tests/integration/workflow/session-store.contract.ts.
 */
export interface SessionStore {
  /**
   * Creates a session from its first event and the pinned workflow text.
   * @throws AlreadyExistsError when the id is taken.
   */
  create(first: SessionStartedEvent, workflowText: string): Promise<SessionState>;
  /** The current state. @throws NotFoundError when there is no such session. */
  load(sessionId: string): Promise<SessionState>;
  /**
   * Runs `decide` on the current state while holding the session's lock (across processes), appends the events it
   * returns in one write, then refreshes the snapshot and the index. `history()` reads the whole log (off the fast path).
   * @throws NotFoundError; LockError when the lock cannot be had.
   */
  update<T>(sessionId: string, decide: (state: SessionState, history: () => Promise<SessionHistory>) => Promise<SessionChange<T>>): Promise<T>;
  /** Every event in order, plus the damaged lines. @throws NotFoundError */
  history(sessionId: string): Promise<SessionHistory>;
  /** The workflow text pinned at start. @throws NotFoundError */
  pinnedWorkflow(sessionId: string): Promise<string>;
  /** Every session's summary from the index (no session folder is opened), most recently updated first. */
  list(filter?: SessionListFilter): Promise<SessionSummary[]>;
  /** Removes a session's folder and index entry. Returns false when there was none. */
  delete(sessionId: string): Promise<boolean>;
  /**
   * Copies one whole session from another store (its every event as written, so every timestamp stays exact, and its
   * pinned workflow text), for `workgraph db import/export`. A session already there with the same events and text
   * is left as it is (`unchanged`: importing twice copies nothing); a different one is kept unless `replace` (`skipped`).
   * @throws StorageError when the events do not start with a session_started event.
   */
  importSession(events: readonly SessionEvent[], workflowText: string, opts?: { replace?: boolean }): Promise<'imported' | 'unchanged' | 'skipped'>;
  /** The verification commands recorded as running for the session (running-verification.ts); none: []. */
  runningVerifications(sessionId: string): Promise<RunningVerification[]>;
  /**
   * Records a running verification (by its runId: a second write of the same run replaces it) before its command
   * starts, so that it outlives this process (not necessarily the machine). Never takes the session's lock (a caller
   * may hold it). @throws NotFoundError
   */
  setRunningVerification(sessionId: string, run: RunningVerification): Promise<void>;
  /** Removes run `runId`'s record (none: nothing happens). */
  clearRunningVerification(sessionId: string, runId: string): Promise<void>;
}
