import type { StepAnswer } from '../get-next-step';
import { buildBlockedHeader } from '../../../domain/sessions';
import type { Workflow } from '../../../domain/types';
import type { Blocker, NodeState, SessionState } from '../../../domain/sessions';
import type { PinnedWorkflowInfo, SessionEngine } from '../../services/session-engine';

/** What workflow_start and workflow_continue answer. */
export interface SessionAnswer {
  /** `started` (workflow_start), `advanced`, `blocked` or `complete`. */
  status: 'started' | 'advanced' | 'blocked' | 'complete';
  sessionId: string;
  /** Send with the next workflow_continue. */
  continueToken: string;
  /** workflow_start: a checkpoint at the very beginning (continue with it to start over on a new branch). */
  checkpointToken?: string;
  /** blocked: the token to send the corrected output with (the same as continueToken). */
  retryToken?: string;
  /** The step to do now, in workflow_next's shape (its text is in guidance.prompt), or null when complete. */
  step: StepAnswer | null;
  guidance: { prompt: string };
  isComplete: boolean;
  /** The session's whole merged context. */
  context: Record<string, unknown>;
  blockers?: Blocker[];
  /** blocked: blocked attempts in a row on this step, and the limit. */
  attempt?: number;
  maxAttempts?: number;
  /** blocked: true once the limit is reached — ask the person. */
  attemptsExhausted?: boolean;
  /** complete: a summary of the run. */
  summary?: string;
  sessionStatus: SessionState['status'];
  workflow: PinnedWorkflowInfo;
  /** Present when this call forked the run (the other branch is kept in the timeline). */
  forked?: { from: number; previousHead: number };
  /** workflow_start: the workflow's references that are missing (`workspace` ones resolved against the session's workspacePath). */
  warnings?: string[];
  /** True when this exact call had been made before and is answered as it was then (nothing new recorded). */
  replayed?: boolean;
}

/** An answer for a node that hands out a step, or for completion. */
export async function nodeAnswer(
  engine: SessionEngine,
  workflow: Workflow,
  state: SessionState,
  node: NodeState,
  status: 'started' | 'advanced',
  extra: Partial<SessionAnswer> = {},
): Promise<SessionAnswer> {
  const a = engine.engineAnswer(workflow, node.completedSteps, node.context);
  const continueToken = await engine.tokens.sign({ kind: 'continue', sessionId: state.sessionId, node: node.node });
  const info = await engine.workflowInfo(state);
  if (a.isComplete || !a.step) {
    const summary = state.summary ?? `${node.completedSteps.length} step(s) done.`;
    return {
      status: 'complete',
      sessionId: state.sessionId,
      continueToken,
      step: null,
      guidance: { prompt: engine.completePrompt(workflow, summary) },
      isComplete: true,
      context: a.context,
      summary,
      sessionStatus: state.status,
      workflow: info,
      ...extra,
    };
  }
  return {
    status,
    sessionId: state.sessionId,
    continueToken,
    step: a.step,
    guidance: { prompt: withNote(engine.sessionPrompt(a), info) },
    isComplete: false,
    context: a.context,
    sessionStatus: state.status,
    workflow: info,
    ...extra,
  };
}

/** A blocked answer: the same step again with what was wrong and a retry token. */
export async function blockedAnswer(
  engine: SessionEngine,
  workflow: Workflow,
  state: SessionState,
  node: NodeState,
  blockers: Blocker[],
  attempt: number,
  exhausted: boolean,
  extra: Partial<SessionAnswer> = {},
): Promise<SessionAnswer> {
  const a = engine.engineAnswer(workflow, node.completedSteps, node.context);
  const retryToken = await engine.tokens.sign({ kind: 'retry', sessionId: state.sessionId, node: node.node });
  const info = await engine.workflowInfo(state);
  const header = buildBlockedHeader(blockers, exhausted, attempt, engine.maxBlockedAttempts);
  return {
    status: 'blocked',
    sessionId: state.sessionId,
    continueToken: retryToken,
    retryToken,
    step: a.step,
    guidance: { prompt: withNote(`${header}\n\n${engine.sessionPrompt(a)}`, info) },
    isComplete: false,
    context: a.context,
    blockers,
    attempt,
    maxAttempts: engine.maxBlockedAttempts,
    attemptsExhausted: exhausted,
    sessionStatus: state.status,
    workflow: info,
    ...extra,
  };
}

function withNote(prompt: string, info: PinnedWorkflowInfo): string {
  return info.note ? `${prompt}\n\n## Workflow version\n${info.note}` : prompt;
}
