/**
 * Workflow sessions as the dashboard shows them, built from the workflow module's session use cases
 * (`workflow_sessions` list entries and a `workflow_session` timeline). Typed structurally, so the dashboard depends
 * only on the shapes those answers have. Progress is never counted here: both answers carry the workflow module's
 * count (domain/sessions/session-progress.ts), so the list, the page and `workflow_session` show the same number.
 */

interface StepPointer {
  completionId: string;
  stepId: string;
  title: string;
}

interface ProgressCounts {
  done: number;
  total: number;
  skipped: number;
}

type StepState = 'done' | 'current' | 'pending' | 'skipped';

export interface SessionListEntryLike {
  sessionId: string;
  workflowId: string;
  goal?: string;
  status: string;
  step: StepPointer | null;
  createdAt?: string;
  updatedAt: string;
  progress?: ProgressCounts;
}

export interface SessionTimelineLike {
  sessionId: string;
  workflow: { id: string; version: string; newerVersionAvailable?: boolean };
  goal?: string;
  status: string;
  step: StepPointer | null;
  completedSteps?: string[];
  progress?: ProgressCounts & { steps: Array<{ stepId: string; title: string; state: StepState }> };
  context?: Record<string, unknown>;
  createdAt?: string;
  updatedAt?: string;
  events: Array<{ seq: number; kind: string; at: string } & Record<string, unknown>>;
  /** Events in the whole timeline, and where the next page starts when this one is not the last (workflow_session pages). */
  totalEvents?: number;
  nextCursor?: string;
}

export interface WorkflowStepLike {
  id: string;
  title?: string;
  prompt?: string;
}

/** One step's notes (Markdown, rendered by the page): a loop's notes say which iteration and body step they are of. */
export interface StepNoteView {
  markdown: string;
  label?: string;
}

export interface StepView {
  id: string;
  title: string;
  state: StepState;
  notes: StepNoteView[];
  artifacts: unknown[];
}

/** A branch of the session's tree: the path from the start to one tip. The head branch is where work goes on. */
export interface BranchView {
  /** The node the branch ends at. */
  tip: number;
  head: boolean;
  label: string;
  /** The last step both this branch and the head branch have done (where they part), when any. */
  forkedAfter?: string;
  steps: StepView[];
  completed: number;
}

export function sessionSummary(s: SessionListEntryLike) {
  return {
    id: s.sessionId,
    workflowId: s.workflowId,
    ...(s.goal ? { workflowName: `${s.workflowId}: ${s.goal}` } : {}),
    status: s.status,
    updatedAt: s.updatedAt,
    ...(s.step ? { currentStep: s.step.title } : {}),
    ...(s.progress ? { progress: counts(s.progress) } : {}),
  };
}

/** `{name: "alice", client: "claude-code"}` → `alice (claude-code)`; undefined for a record without an actor. */
export function actorText(actor: unknown): string | undefined {
  if (typeof actor !== 'object' || actor === null) return undefined;
  const { name, client } = actor as { name?: unknown; client?: unknown };
  if (typeof name !== 'string' || !name) return undefined;
  return typeof client === 'string' && client ? `${name} (${client})` : name;
}

function counts(p: ProgressCounts): ProgressCounts {
  return { done: p.done, total: p.total, skipped: p.skipped };
}

/** The top-level step a completion id belongs to: `loop[0].step` → `loop`. */
function topLevelOf(completionId: string): string {
  const i = completionId.indexOf('[');
  return i < 0 ? completionId : completionId.slice(0, i);
}

/** `fix[1].apply` → 2: the innermost loop iteration a completion id is of, counted from 1. */
function iterationOf(completionId: string): number | undefined {
  const m = /\[(\d+)\]\.[^[\]]*$/.exec(completionId);
  return m ? Number(m[1]) + 1 : undefined;
}

/** `fix[1].apply` → "iteration 2 · Apply the fix". */
function loopLabel(completionId: string, title: string): string | undefined {
  const i = iterationOf(completionId);
  return i === undefined ? undefined : `iteration ${i} · ${title}`;
}

interface Advance {
  from: number;
  node: number;
  completionId: string;
  title: string;
  notes?: string;
  artifacts: unknown[];
}

/** The session's tree, from its log: which node each advance made, where the head is, every branch's tip. */
function sessionTree(events: SessionTimelineLike['events']) {
  const advances = new Map<number, Advance>();
  let head = 0;
  for (const e of events) {
    if (e.kind === 'step_completed' && typeof e.node === 'number' && typeof e.from === 'number') {
      const completionId = String(e.completionId ?? '');
      advances.set(e.node, {
        from: e.from,
        node: e.node,
        completionId,
        title: String(e.title ?? completionId),
        ...(typeof e.notesMarkdown === 'string' && e.notesMarkdown.trim() ? { notes: e.notesMarkdown } : {}),
        artifacts: Array.isArray(e.artifacts) ? e.artifacts : [],
      });
      head = e.node;
    } else if (e.kind === 'forked' && typeof e.from === 'number') head = e.from;
  }
  const parents = new Set([...advances.values()].map((a) => a.from));
  const path = (tip: number): Advance[] => {
    const out: Advance[] = [];
    for (let n: number | undefined = tip; n !== undefined && advances.has(n); n = advances.get(n)?.from) out.push(advances.get(n)!);
    return out.reverse();
  };
  const tips = [...advances.keys()].filter((n) => !parents.has(n) && n !== head);
  return { head, path, tips };
}

function stepsOf(path: Advance[], base: ReadonlyArray<{ id: string; title: string; state: StepState }>, derive: boolean): StepView[] {
  const notes = new Map<string, StepNoteView[]>();
  const artifacts = new Map<string, unknown[]>();
  for (const a of path) {
    const id = topLevelOf(a.completionId);
    const label = loopLabel(a.completionId, a.title);
    if (a.notes) (notes.get(id) ?? notes.set(id, []).get(id)!).push({ markdown: a.notes, ...(label ? { label } : {}) });
    if (a.artifacts.length) (artifacts.get(id) ?? artifacts.set(id, []).get(id)!).push(...a.artifacts);
  }
  const doneHere = new Set(path.map((a) => topLevelOf(a.completionId)));
  return base.map((s) => ({
    id: s.id,
    title: s.title,
    // Another branch's steps: done when that branch did them (the counts of progress are the head's alone).
    state: derive ? (doneHere.has(s.id) ? 'done' : 'pending') : s.state,
    notes: notes.get(s.id) ?? [],
    artifacts: artifacts.get(s.id) ?? [],
  }));
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

/**
 * The session page: the head branch's steps (state from the workflow module's progress, notes and artifacts of that
 * branch only), every other branch reachable, the current prompt, the summary, blocked attempts and the timeline.
 */
export function sessionDetail(t: SessionTimelineLike, steps: readonly WorkflowStepLike[]) {
  const blocked: Array<{ at: string; stepId: string; issues: string[] }> = [];
  const timeline: TimelineView[] = [];
  let summary: string | undefined;
  for (const e of t.events) {
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
  const tree = sessionTree(t.events);
  const headPath = tree.path(tree.head);
  const current = t.step?.stepId;
  // The workflow module's own step list when the answer has one; else the workflow as loaded now, else the steps seen.
  const base: Array<{ id: string; title: string; state: StepState }> = t.progress
    ? t.progress.steps.map((s) => ({ id: s.stepId, title: s.title, state: s.state }))
    : (steps.length ? steps.map((s) => ({ id: s.id, title: s.title ?? s.id })) : [...new Set(headPath.map((a) => topLevelOf(a.completionId)))].map((id) => ({ id, title: id }))).map((s) => ({
        ...s,
        state: (s.id === current ? 'current' : headPath.some((a) => topLevelOf(a.completionId) === s.id) ? 'done' : 'pending') as StepState,
      }));
  const headSteps = stepsOf(headPath, base, false);
  const onHead = new Set(headPath.map((a) => a.node));
  const branches: BranchView[] = [
    { tip: tree.head, head: true, label: 'head branch (where the session goes on)', steps: headSteps, completed: headPath.length },
    ...tree.tips.map((tip): BranchView => {
      const path = tree.path(tip);
      const shared = [...path].reverse().find((a) => onHead.has(a.node));
      const last = path[path.length - 1];
      return {
        tip,
        head: false,
        label: `left at ${last ? last.title : 'the start'} (node ${tip})`,
        ...(shared ? { forkedAfter: shared.title } : {}),
        steps: stepsOf(path, base, true),
        completed: path.length,
      };
    }),
  ];
  const currentPrompt = steps.find((s) => s.id === current)?.prompt;
  return {
    id: t.sessionId,
    ...(t.totalEvents !== undefined ? { totalEvents: t.totalEvents } : {}),
    ...(t.nextCursor !== undefined ? { nextCursor: t.nextCursor } : {}),
    workflowId: t.workflow.id,
    workflowName: `${t.workflow.id} ${t.workflow.version}${t.goal ? ` — ${t.goal}` : ''}`,
    status: t.status,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    ...(t.step ? { currentStep: t.step.title } : {}),
    ...(t.progress ? { progress: counts(t.progress) } : {}),
    steps: headSteps,
    branches,
    ...(currentPrompt ? { currentPrompt } : {}),
    ...(summary ? { summary } : {}),
    blocked,
    timeline,
    context: t.context,
  };
}
