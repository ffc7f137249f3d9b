import type { SessionEvent } from './session-events';
import type { SessionState } from './session-state';
import { searchTextOf, type SessionSummary } from './resume-ranking';
import type { SessionProgress } from './session-progress';

/** The index entry of a session, derived from its state (what listing and resume read). */
export function summarizeSession(state: SessionState): SessionSummary {
  return {
    sessionId: state.sessionId,
    workflowId: state.workflowId,
    workflowVersion: state.workflowVersion,
    ...(state.goal !== undefined ? { goal: state.goal } : {}),
    ...(state.workspacePath !== undefined ? { workspacePath: state.workspacePath } : {}),
    ...(state.gitBranch !== undefined ? { gitBranch: state.gitBranch } : {}),
    status: state.status,
    current: state.head.current,
    createdAt: state.createdAt,
    updatedAt: state.updatedAt,
    ...(state.completedAt !== undefined ? { completedAt: state.completedAt } : {}),
    searchText: searchTextOf(state.goal, state.head.recentNotes.map((n) => `${n.title} ${n.notes}`)),
  };
}

/**
 * The summary of a finished run, written once when it completes: how many steps (as {@link SessionProgress} counts
 * them, when given: a loop is one step), blocked attempts, forks and checkpoints, and the first line of each step's
 * notes on the branch that finished.
 */
export function summarizeRun(events: readonly SessionEvent[], finalSteps: readonly string[], progress?: Pick<SessionProgress, 'done' | 'total' | 'skipped'>): string {
  let blocked = 0;
  let forks = 0;
  let checkpoints = 0;
  const firstLines = new Map<string, string>();
  for (const e of events) {
    if (e.kind === 'output_blocked') blocked++;
    else if (e.kind === 'forked') forks++;
    else if (e.kind === 'checkpoint_created') checkpoints++;
    else if (e.kind === 'step_completed' && e.notesMarkdown?.trim()) firstLines.set(e.completionId, `${e.title}: ${e.notesMarkdown.trim().split('\n')[0].slice(0, 200)}`);
  }
  const lines = [
    `${progress ? `${progress.done} of ${progress.total} steps done${progress.skipped ? ` (${progress.skipped} skipped)` : ''}` : `${finalSteps.length} step(s) done`}; ${blocked} blocked attempt(s); ${forks} fork(s); ${checkpoints} checkpoint(s).`,
    ...finalSteps.filter((id) => firstLines.has(id)).map((id) => `- ${firstLines.get(id)}`),
  ];
  return lines.join('\n');
}
