/**
 * A workflow session's timeline as the dashboard's session page shows it, built from the `workflow_session` events:
 * one entry an event (who made it, verification runs with their output tails, an audit's ratings), the blocked
 * attempts, and the summary the session completed with. Typed structurally, as session-view.ts is.
 */

/** One event of a `workflow_session` timeline, as the answer carries it. */
export type SessionEvent = { seq: number; kind: string; at: string } & Record<string, unknown>;

/** `fix[1].apply` → 2: the innermost loop iteration a completion id is of, counted from 1. */
export function iterationOf(completionId: string): number | undefined {
  const m = /\[(\d+)\]\.[^[\]]*$/.exec(completionId);
  return m ? Number(m[1]) + 1 : undefined;
}

/** `{name: "alice", client: "claude-code"}` → `alice (claude-code)`; undefined for a record without an actor. */
export function actorText(actor: unknown): string | undefined {
  if (typeof actor !== 'object' || actor === null) return undefined;
  const { name, client } = actor as { name?: unknown; client?: unknown };
  if (typeof name !== 'string' || !name) return undefined;
  return typeof client === 'string' && client ? `${name} (${client})` : name;
}

/** One timeline entry of the session page; verification runs and audits carry what the page shows of them. */
export interface TimelineView {
  at: string;
  kind: string;
  label: string;
  ref?: string;
  /** Who made it (identity, and the agent's MCP client), when the event says. */
  actor?: string;
  /** A verification_run event: the command, how it ended, its output tails (shown on click). */
  verification?: VerificationView;
  /** The wr.assessment artifacts of the output (an audit step's ratings): each assessment's level per dimension. */
  audit?: AuditView[];
}

export interface VerificationView {
  command: string;
  ranBy: string;
  verified: boolean;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
  attempt: number;
  stdoutTail: string;
  stderrTail: string;
  reason?: string;
  /** The run's verdict as the page's badge says it (see {@link verificationBadge}). */
  badge: VerificationBadge;
}

/**
 * What a verification run's badge says: `passed` (the server ran it, exit 0), `failed` (the server ran it: exit ≠ 0,
 * timed out or ended by a signal), `unverified` (handed to the agent: nothing ran here), `cancelled` (the call was
 * cancelled or the server shut down; not counted), `interrupted` (the server running it died; a restarted server
 * killed what was left; not counted).
 */
export type VerificationBadge = 'passed' | 'failed' | 'unverified' | 'cancelled' | 'interrupted';

export function verificationBadge(e: { ranBy?: unknown; verified?: unknown; cancelled?: unknown; interrupted?: unknown }): VerificationBadge {
  if (e.ranBy === 'agent') return 'unverified';
  if (e.interrupted === true) return 'interrupted';
  if (e.cancelled === true) return 'cancelled';
  return e.verified === true ? 'passed' : 'failed';
}

export interface AuditView {
  assessmentId: string;
  dimensions: Array<{ id: string; level: string }>;
}

function verificationOf(e: Record<string, unknown>): VerificationView {
  return {
    command: String(e.command ?? ''),
    ranBy: String(e.ranBy ?? 'server'),
    verified: e.verified === true,
    exitCode: typeof e.exitCode === 'number' ? e.exitCode : null,
    signal: typeof e.signal === 'string' ? e.signal : null,
    timedOut: e.timedOut === true,
    cancelled: e.cancelled === true,
    durationMs: typeof e.durationMs === 'number' ? e.durationMs : 0,
    attempt: typeof e.attempt === 'number' ? e.attempt : 1,
    stdoutTail: typeof e.stdoutTail === 'string' ? e.stdoutTail : '',
    stderrTail: typeof e.stderrTail === 'string' ? e.stderrTail : '',
    ...(typeof e.reason === 'string' ? { reason: e.reason } : {}),
    badge: verificationBadge(e),
  };
}

function verificationLabel(v: VerificationView, parent: string): string {
  const of = `verification of ${parent.replace(/__verification$/, '')} (attempt ${v.attempt})`;
  if (v.ranBy === 'agent') return `${of}: handed to the agent${v.reason ? ` (${v.reason})` : ''}`;
  if (v.badge === 'interrupted') return `${of}: interrupted (the server running it stopped; not counted)`;
  if (v.cancelled) return `${of}: cancelled after ${v.durationMs} ms`;
  if (v.timedOut) return `${of}: timed out after ${v.durationMs} ms`;
  return `${of}: ${v.exitCode === null ? `ended by ${v.signal ?? 'a signal'}` : `exit ${v.exitCode}`} in ${v.durationMs} ms`;
}

function assessmentsOf(artifacts: unknown): AuditView[] | undefined {
  if (!Array.isArray(artifacts)) return undefined;
  const out: AuditView[] = [];
  for (const a of artifacts) {
    if (typeof a !== 'object' || a === null) continue;
    const art = a as { kind?: unknown; assessmentId?: unknown; dimensions?: unknown };
    if (art.kind !== 'wr.assessment' || typeof art.dimensions !== 'object' || art.dimensions === null) continue;
    out.push({
      assessmentId: String(art.assessmentId ?? ''),
      dimensions: Object.entries(art.dimensions as Record<string, unknown>).map(([id, level]) => ({ id, level: String(level) })),
    });
  }
  return out.length > 0 ? out : undefined;
}

/** An output the session refused: when, on which completion id, and each issue (`pointer: message`). */
export interface BlockedAttemptView {
  at: string;
  stepId: string;
  issues: string[];
}

/** The timeline entries of a session's events, its blocked attempts, and the summary it completed with (if it did). */
export function sessionTimeline(events: readonly SessionEvent[]): { timeline: TimelineView[]; blocked: BlockedAttemptView[]; summary: string | undefined } {
  const blocked: BlockedAttemptView[] = [];
  const timeline: TimelineView[] = [];
  let summary: string | undefined;
  for (const e of events) {
    const id = String(e.completionId ?? '');
    const before = timeline.length;
    switch (e.kind) {
      case 'session_started':
        timeline.push({ at: e.at, kind: 'created', label: `started${e.goal ? `: ${String(e.goal)}` : ''}` });
        break;
      case 'step_completed': {
        const audit = assessmentsOf(e.artifacts);
        timeline.push({
          at: e.at,
          kind: audit ? 'audit' : 'step',
          label: `completed ${String(e.title ?? id)}${iterationOf(id) !== undefined ? ` (iteration ${iterationOf(id)})` : ''}`,
          ...(audit ? { audit } : {}),
        });
        break;
      }
      case 'output_blocked': {
        const blockers = Array.isArray(e.blockers) ? (e.blockers as Array<{ pointer?: string; message?: string }>) : [];
        blocked.push({ at: e.at, stepId: id, issues: blockers.map((b) => `${b.pointer ? `${b.pointer}: ` : ''}${b.message ?? ''}`) });
        const audit = assessmentsOf(e.artifacts);
        timeline.push({ at: e.at, kind: 'blocked', label: `blocked on ${String(e.title ?? id)} (attempt ${String(e.attempt ?? '?')})`, ...(audit ? { audit } : {}) });
        break;
      }
      case 'verification_run': {
        const v = verificationOf(e);
        timeline.push({ at: e.at, kind: 'verification', label: verificationLabel(v, String(e.parentStepId ?? id)), verification: v });
        break;
      }
      case 'checkpoint_created':
        timeline.push({ at: e.at, kind: 'checkpoint', label: `checkpoint at node ${String(e.node)}${e.note ? `: ${String(e.note)}` : ''}` });
        break;
      case 'forked': {
        // An audit below its bar sends the run back to the audited step: the fork keeps the audit's output.
        const sentBack = e.via === 'audit' && typeof e.audit === 'object' && e.audit !== null ? (e.audit as { artifacts?: unknown; note?: unknown }) : undefined;
        const audit = sentBack ? assessmentsOf(sentBack.artifacts) : undefined;
        timeline.push({
          at: e.at,
          kind: sentBack ? 'audit' : 'fork',
          label: sentBack
            ? `audit below its bar: back to the audited step${typeof sentBack.note === 'string' && sentBack.note ? ` (${sentBack.note})` : ''}`
            : `forked from node ${String(e.from)} (${String(e.via)}), leaving node ${String(e.previousHead)}`,
          ...(audit ? { audit } : {}),
        });
        break;
      }
      case 'session_resumed':
        timeline.push({ at: e.at, kind: 'step', label: `resumed${e.query ? `: ${String(e.query)}` : ''}` });
        break;
      case 'session_completed':
        if (typeof e.summary === 'string') summary = e.summary;
        timeline.push({ at: e.at, kind: 'step', label: 'completed the workflow' });
        break;
      default:
        timeline.push({ at: e.at, kind: 'step', label: e.kind });
    }
    // Who made it (the identity, and the agent's MCP client): events written before actors were kept have none.
    const who = actorText(e.actor);
    if (who) for (let i = before; i < timeline.length; i++) timeline[i]!.actor = who;
  }
  return { timeline, blocked, summary };
}
