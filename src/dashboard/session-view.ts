/**
 * Workflow sessions as the dashboard shows them, built from the workflow module's session use cases
 * (`workflow_sessions` list entries and a `workflow_session` timeline) and the workflow's steps. Typed structurally, so
 * the dashboard depends only on the shapes those answers have.
 */

interface StepPointer {
  completionId: string;
  stepId: string;
  title: string;
}

export interface SessionListEntryLike {
  sessionId: string;
  workflowId: string;
  goal?: string;
  status: string;
  step: StepPointer | null;
  createdAt: string;
  updatedAt: string;
}

export interface SessionTimelineLike {
  sessionId: string;
  workflow: { id: string; version: string; newerVersionAvailable?: boolean };
  goal?: string;
  status: string;
  step: StepPointer | null;
  completedSteps: string[];
  context: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  events: Array<{ seq: number; kind: string; at: string } & Record<string, unknown>>;
}

export interface WorkflowStepLike {
  id: string;
  title?: string;
  prompt?: string;
}

export function sessionSummary(s: SessionListEntryLike, stepsTotal?: number) {
  return {
    id: s.sessionId,
    workflowId: s.workflowId,
    ...(s.goal ? { workflowName: `${s.workflowId}: ${s.goal}` } : {}),
    status: s.status,
    updatedAt: s.updatedAt,
    ...(s.step ? { currentStep: s.step.title } : {}),
    ...(stepsTotal !== undefined ? { progress: { done: 0, total: stepsTotal } } : {}),
  };
}

/** The session page: steps with their state, notes and artifacts, the current prompt, blocked attempts, the timeline. */
export function sessionDetail(t: SessionTimelineLike, steps: readonly WorkflowStepLike[]) {
  const notes = new Map<string, string[]>();
  const artifacts = new Map<string, unknown[]>();
  const blocked: Array<{ at: string; stepId: string; issues: string[] }> = [];
  const timeline: Array<{ at: string; kind: string; label: string }> = [];
  const done = new Set(t.completedSteps.map((c) => c.replace(/^.*\]\./, '')));
  for (const e of t.events) {
    const id = String(e.completionId ?? '');
    switch (e.kind) {
      case 'session_started':
        timeline.push({ at: e.at, kind: 'created', label: `started${e.goal ? `: ${String(e.goal)}` : ''}` });
        break;
      case 'step_completed':
        if (typeof e.notesMarkdown === 'string') (notes.get(id) ?? notes.set(id, []).get(id)!).push(e.notesMarkdown);
        if (Array.isArray(e.artifacts)) (artifacts.get(id) ?? artifacts.set(id, []).get(id)!).push(...e.artifacts);
        timeline.push({ at: e.at, kind: 'step', label: `completed ${String(e.title ?? id)}` });
        break;
      case 'output_blocked': {
        const blockers = Array.isArray(e.blockers) ? (e.blockers as Array<{ pointer?: string; message?: string }>) : [];
        blocked.push({ at: e.at, stepId: id, issues: blockers.map((b) => `${b.pointer ? `${b.pointer}: ` : ''}${b.message ?? ''}`) });
        timeline.push({ at: e.at, kind: 'blocked', label: `blocked on ${String(e.title ?? id)} (attempt ${String(e.attempt ?? '?')})` });
        break;
      }
      case 'checkpoint_created':
        timeline.push({ at: e.at, kind: 'checkpoint', label: `checkpoint at node ${String(e.node)}${e.note ? `: ${String(e.note)}` : ''}` });
        break;
      case 'forked':
        timeline.push({ at: e.at, kind: 'fork', label: `forked from node ${String(e.from)} (${String(e.via)}), leaving node ${String(e.previousHead)}` });
        break;
      case 'session_resumed':
        timeline.push({ at: e.at, kind: 'step', label: `resumed${e.query ? `: ${String(e.query)}` : ''}` });
        break;
      case 'session_completed':
        timeline.push({ at: e.at, kind: 'step', label: `completed the workflow${e.summary ? `: ${String(e.summary)}` : ''}` });
        break;
      default:
        timeline.push({ at: e.at, kind: 'step', label: e.kind });
    }
  }
  const current = t.step?.stepId;
  const shown: readonly WorkflowStepLike[] = steps.length ? steps : [...new Set([...done, ...(current ? [current] : [])])].map((id) => ({ id }));
  const list = shown.map((s) => ({
    id: s.id,
    title: s.title ?? s.id,
    state: s.id === current ? 'current' : done.has(s.id) ? 'done' : 'pending',
    notes: notes.get(s.id) ?? [],
    artifacts: artifacts.get(s.id) ?? [],
  }));
  const currentPrompt = steps.find((s) => s.id === current)?.prompt;
  return {
    id: t.sessionId,
    workflowId: t.workflow.id,
    workflowName: `${t.workflow.id} ${t.workflow.version}${t.goal ? ` — ${t.goal}` : ''}`,
    status: t.status,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    ...(t.step ? { currentStep: t.step.title } : {}),
    progress: { done: list.filter((s) => s.state === 'done').length, total: list.length },
    steps: list,
    ...(currentPrompt ? { currentPrompt } : {}),
    blocked,
    timeline,
    context: t.context,
  };
}
