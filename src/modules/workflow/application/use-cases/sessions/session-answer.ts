import type { ToolOutput } from '../../../../../kernel/tools/tool-schema';
import type { workflowStartSchemas } from '../../workflow-session.tool-schemas';
import { buildBlockedHeader, withWorkflowVersionNote } from '../../../domain/guidance';
import type { Workflow } from '../../../domain/types';
import type { Blocker, NodeState, SessionState } from '../../../domain/sessions';
import type { SessionEngine } from '../../services/session-engine';
import type { CallContext } from '../../../../../kernel/call-context';
import type { GetNextStepOutput } from '../../services/next-step-engine';

/** What an answer may add: the caller (a verification step's text depends on it), the limit and sections of a blocked one. */
export interface AnswerOptions {
  ctx?: CallContext;
  maxAttempts?: number;
  sections?: string[];
}

/** The engine's answer for a node, with a verification step worded for this caller (server-run or agent-run). */
async function engineAnswerFor(engine: SessionEngine, workflow: Workflow, state: SessionState, node: NodeState, ctx: CallContext | undefined): Promise<GetNextStepOutput> {
  const a = engine.engineAnswer(workflow, node.completedSteps, node.context);
  if (!a.step || !engine.verificationOf(workflow, node.current)) return a;
  return engine.engineAnswer(workflow, node.completedSteps, node.context, undefined, { mode: await engine.verificationMode(state, ctx) });
}

/**
 * What workflow_start and workflow_continue answer, as their one output schema (`sessionAnswer` in
 * workflow-session.tool-schemas.ts) describes it; `context` is the session's whole merged context, a plain object.
 */
export type SessionAnswer = Omit<ToolOutput<typeof workflowStartSchemas>, 'context'> & { context: Record<string, unknown> };

/** An answer for a node that hands out a step, or for completion. */
export async function nodeAnswer(
  engine: SessionEngine,
  workflow: Workflow,
  state: SessionState,
  node: NodeState,
  status: 'started' | 'advanced' | 'running',
  extra: Partial<SessionAnswer> = {},
  opts: AnswerOptions = {},
): Promise<SessionAnswer> {
  const a = await engineAnswerFor(engine, workflow, state, node, opts.ctx);
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
  const prompt = [...(opts.sections ?? []), engine.sessionPrompt(a)].join('\n\n');
  return {
    status,
    sessionId: state.sessionId,
    continueToken,
    step: a.step,
    guidance: { prompt: withWorkflowVersionNote(prompt, info.note) },
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
  opts: AnswerOptions = {},
): Promise<SessionAnswer> {
  const a = await engineAnswerFor(engine, workflow, state, node, opts.ctx);
  const retryToken = await engine.tokens.sign({ kind: 'retry', sessionId: state.sessionId, node: node.node });
  const info = await engine.workflowInfo(state);
  const max = opts.maxAttempts ?? engine.maxBlockedAttempts;
  const header = [buildBlockedHeader(blockers, exhausted, attempt, max), ...(opts.sections ?? [])].join('\n\n');
  return {
    status: 'blocked',
    sessionId: state.sessionId,
    continueToken: retryToken,
    retryToken,
    step: a.step,
    guidance: { prompt: withWorkflowVersionNote(`${header}\n\n${engine.sessionPrompt(a)}`, info.note) },
    isComplete: false,
    context: a.context,
    blockers,
    attempt,
    maxAttempts: max,
    attemptsExhausted: exhausted,
    sessionStatus: state.status,
    workflow: info,
    ...extra,
  };
}
