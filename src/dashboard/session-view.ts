/**
 * Workflow sessions as the dashboard shows them, built from the workflow module's session use cases
 * (`workflow_sessions` list entries and a `workflow_session` timeline). Typed structurally, so the dashboard depends
 * only on the shapes those answers have. Progress is never counted here: both answers carry the workflow module's
 * count (domain/sessions/session-progress.ts), so the list, the page and `workflow_session` show the same number.
 * The page's timeline is built in session-timeline.ts.
 */
import { iterationOf, sessionTimeline, type SessionEvent } from './session-timeline';

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
  events: SessionEvent[];
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

function counts(p: ProgressCounts): ProgressCounts {
  return { done: p.done, total: p.total, skipped: p.skipped };
}

/** The top-level step a completion id belongs to: `loop[0].step` → `loop`. */
function topLevelOf(completionId: string): string {
  const i = completionId.indexOf('[');
  return i < 0 ? completionId : completionId.slice(0, i);
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

/**
 * The session page: the head branch's steps (state from the workflow module's progress, notes and artifacts of that
 * branch only), every other branch reachable, the current prompt, the summary, blocked attempts and the timeline.
 */
export function sessionDetail(t: SessionTimelineLike, steps: readonly WorkflowStepLike[]) {
  const { timeline, blocked, summary } = sessionTimeline(t.events);
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
