/**
 * What happens to a durable workflow session, one event per line of its append-only log. A session is a tree of
 * nodes (states): node 0 is the start, each advance makes a new node whose parent is the node it advanced from, and a
 * fork moves the head back to an earlier node — the old branch stays in the log, so nothing is ever lost.
 */

import type { Actor } from '../../../../kernel/identity';

export type SessionStatus = 'active' | 'needs_attention' | 'complete';

/** The step a node hands out (null once the workflow is complete). */
export interface StepPointer {
  completionId: string;
  stepId: string;
  title: string;
}

/** What was missing or wrong in an output, precise enough to fix it without guessing. */
export interface Blocker {
  code: string;
  /** JSON pointer into the submitted output (`/notesMarkdown`, `/artifacts/0/verdict`). */
  pointer: string;
  message: string;
  /** The expected shape or value, when one can be stated. */
  expected?: unknown;
}

/** Notes an agent left on one step, as kept for the recap (bounded). */
export interface StepNote {
  completionId: string;
  title: string;
  notes: string;
}

/** The state of one node: what a continue from it starts from. */
export interface NodeState {
  node: number;
  completedSteps: string[];
  context: Record<string, unknown>;
  current: StepPointer | null;
  /** Blocked attempts in a row on the current step. */
  blockedAttempts: number;
  recentNotes: StepNote[];
}

interface Base {
  /** ISO time. */
  at: string;
  /** Who caused it: the caller's identity name and the agent's client name (events written before identities have none). */
  actor?: Actor;
}

export interface SessionStartedEvent extends Base {
  kind: 'session_started';
  sessionId: string;
  workflowId: string;
  workflowVersion: string;
  /** sha256 of the pinned workflow file's bytes (hex). */
  workflowHash: string;
  /** Where the workflow came from when it is the workspace's own (`workspace`); absent for the configured sources. */
  workflowSource?: string;
  goal?: string;
  workspacePath?: string;
  gitBranch?: string;
  context: Record<string, unknown>;
  next: StepPointer | null;
}

export interface StepCompletedEvent extends Base {
  kind: 'step_completed';
  from: number;
  node: number;
  completionId: string;
  title: string;
  /** Hash of (output, context patch): the same call again is recognised and answered the same (idempotent). */
  outputHash: string;
  notesMarkdown?: string;
  artifacts?: unknown[];
  contextPatch?: Record<string, unknown>;
  next: StepPointer | null;
}

export interface OutputBlockedEvent extends Base {
  kind: 'output_blocked';
  node: number;
  completionId: string;
  title: string;
  outputHash: string;
  notesMarkdown?: string;
  artifacts?: unknown[];
  contextPatch?: Record<string, unknown>;
  blockers: Blocker[];
  /** 1-based count of blocked attempts in a row on this step. */
  attempt: number;
  /** True when attempt reached the limit: the session needs a person. */
  exhausted: boolean;
}

export interface CheckpointCreatedEvent extends Base {
  kind: 'checkpoint_created';
  node: number;
  note?: string;
}

export interface ForkedEvent extends Base {
  kind: 'forked';
  /** The node the new branch starts from. */
  from: number;
  /** The head that was left behind (still in the log). */
  previousHead: number;
  /** `audit`: an audit rated the audited step below its bar and sent the run back to it. */
  via: 'fork' | 'checkpoint' | 'audit';
  /** For `via: "audit"`: the audit step completed, its output and why it sent the run back. */
  audit?: { completionId: string; notesMarkdown?: string; artifacts?: unknown[]; note: string };
  /** The state of `from`, so folding the head never needs the rest of the log. */
  state: NodeState;
}

export interface SessionResumedEvent extends Base {
  kind: 'session_resumed';
  node: number;
  query?: string;
}

export interface SessionCompletedEvent extends Base {
  kind: 'session_completed';
  node: number;
  summary: string;
}

/**
 * One attempt at a verification step (a step's `verification {command}`, expanded to `<parentId>__verification`):
 * the server ran the command in the session's workspace (`ranBy: "server"`: exit code, tails, duration), or it may
 * not and handed the command to the agent (`ranBy: "agent"`: nothing ran here, `verified` is false and `reason`
 * says why). A run the client cancelled (or a server shutdown ended) is recorded too, with `cancelled: true`; it is
 * not counted as an attempt. Written before the `step_completed` (verified, or the agent's report) or the
 * `output_blocked` (the command failed) it leads to, at the same point.
 */
export interface VerificationRunEvent extends Base {
  kind: 'verification_run';
  /** The point (node) whose current step is the verification step. */
  node: number;
  completionId: string;
  /** The verification step's id (`<parentId>__verification`). */
  stepId: string;
  /** The step whose deliverables it checks. */
  parentStepId: string;
  command: string;
  ranBy: 'server' | 'agent';
  /** Why the server did not run it (`ranBy: "agent"`): no_run_scope, no_workspace, workspace_outside_roots, disabled. */
  reason?: string;
  /** The workspace it ran in (`ranBy: "server"`). */
  cwd?: string;
  /** null when the process was ended by a signal, or nothing ran. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  /** Tails of the output (bounded, like a task's validation run). */
  stdoutTail: string;
  stderrTail: string;
  truncated: boolean;
  /** True only when the server ran the command and it exited 0. */
  verified: boolean;
  /** 1-based count of this step's attempts (a cancelled run repeats the count of the attempt it interrupted). */
  attempt: number;
  /** The time limit the command ran under (ms). */
  timeoutMs?: number;
  /**
   * The run's id (`WORKGRAPH_COMMAND_ID` in the command's environment; a server run's), so the running record it
   * ends (running-verification.ts) is recognised as written.
   */
  runId?: string;
  /**
   * True when the server running the command died mid-run (SIGKILL, a crash): a restarted server found the running
   * record, killed what was left and wrote this event. Like a cancelled run, it is not a failed attempt: the session
   * stays at the verification step and the command runs again on the next continue.
   */
  interrupted?: boolean;
}

export type SessionEvent =
  | SessionStartedEvent
  | StepCompletedEvent
  | OutputBlockedEvent
  | VerificationRunEvent
  | CheckpointCreatedEvent
  | ForkedEvent
  | SessionResumedEvent
  | SessionCompletedEvent;

export type SessionEventKind = SessionEvent['kind'];

export const SESSION_EVENT_KINDS: readonly SessionEventKind[] = [
  'session_started',
  'step_completed',
  'output_blocked',
  'verification_run',
  'checkpoint_created',
  'forked',
  'session_resumed',
  'session_completed',
];

/** Structural check of a parsed log line (a line that fails it is reported as damaged, never folded). */
export function isSessionEvent(value: unknown): value is SessionEvent {
  if (!value || typeof value !== 'object') return false;
  const v = value as { kind?: unknown; at?: unknown };
  return typeof v.at === 'string' && SESSION_EVENT_KINDS.includes(v.kind as SessionEventKind);
}
