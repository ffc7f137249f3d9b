import { noopCallContext, type CallContext } from '../../../../../kernel/call-context';
import { foldSessionEvents, summarizeRun, sessionProgress, type NodeState, type SessionEvent, type SessionState, type VerificationRunEvent } from '../../../domain/sessions';
import { verificationCancelled, verificationFailedMessage, verificationFailedSection, verificationRunningSection } from '../../../domain/verification-guidance';
import type { VirtualStepInfo, Workflow } from '../../../domain/types';
import type { ResolvedStep } from '../../../domain/step-resolution';
import type { SessionHistory } from '../../ports/session-store';
import type { TokenClaims } from '../../ports/session-tokens';
import { pointerOf, type SessionEngine } from '../../services/session-engine';
import type { StillRunning, VerificationOutcome } from '../../services/verification-service';
import { verificationAnswer } from '../../services/next-step-engine';
import { blockedAnswer, nodeAnswer, type SessionAnswer } from './session-answer';
import { recoverInterruptedVerification } from './interrupted-verification';

type VerificationInfo = Extract<VirtualStepInfo, { kind: 'verification' }>;

/** A verification run made before the session's lock was taken, for the step at `node`. */
export interface PriorRun {
  node: number;
  completionId: string;
  outcome: VerificationOutcome;
}

/** What a continue on a verification step writes and answers; `cancelled` when the run was cancelled (nothing else). */
export interface VerificationChange {
  events: SessionEvent[];
  result: SessionAnswer;
  cancelled?: string;
  /** The run id of a command run under the lock (its running record is removed once the events are written). */
  runId?: string;
}

/**
 * Before the lock: when the token is the head and its step is a verification step, the command runs now, outside the
 * session's lock (it may take minutes; reads of the session go on meanwhile). The outcome is recorded under the lock
 * if the head has not moved since. Undefined when there is nothing to run first.
 */
export async function runBeforeLock(
  engine: SessionEngine,
  claims: TokenClaims,
  hash: string,
  ctx: CallContext | undefined,
  now: () => number,
  waitMs: number,
): Promise<PriorRun | { state: SessionState; still: StillRunning } | undefined> {
  let state = await engine.store.load(claims.sessionId).catch(() => undefined);
  if (!state) return undefined;
  // A run a dead server left: its remains killed, the attempt recorded as interrupted (then it runs again below).
  if (await recoverInterruptedVerification(engine, claims.sessionId, ctx, now)) state = await engine.store.load(claims.sessionId);
  if (claims.kind === 'checkpoint') return undefined;
  if (state.head.node !== claims.node || !state.head.current) return undefined;
  const last = state.lastOutcome;
  // The same call after an advance is a replay: nothing runs again.
  if (last && last.kind === 'advanced' && last.from === claims.node && last.outputHash === hash) return undefined;
  const workflow = await engine.workflowOf(state);
  const info = engine.verificationOf(workflow, state.head.current);
  if (!info) return undefined;
  const current = state.head.current;
  const outcome = await engine.verify(info, state, state.head.node, { completionId: current.completionId, stepId: current.stepId }, ctx ?? noopCallContext(), waitMs);
  if ('running' in outcome) return { state, still: outcome };
  return { node: state.head.node, completionId: current.completionId, outcome };
}

/**
 * A continue on a verification step (under the lock): the outcome (the prior run's, else one made now) is a
 * `verification_run` event; exit 0 — or a command handed to the agent, recorded unverified — completes the step, a
 * failure blocks it (`--max-verification-attempts` in a row, then it needs a person), a cancelled run is recorded
 * and changes nothing else.
 */
export async function continueVerification(args: {
  engine: SessionEngine;
  workflow: Workflow;
  state: SessionState;
  history: () => Promise<SessionHistory>;
  base: NodeState;
  step: ResolvedStep;
  info: VerificationInfo;
  pre: SessionEvent[];
  common: Record<string, unknown>;
  context: Record<string, unknown>;
  prior: PriorRun | undefined;
  extra: Partial<SessionAnswer>;
  ctx: CallContext | undefined;
  at: () => string;
}): Promise<VerificationChange> {
  const { engine, workflow, state, base, step, info, pre, common, ctx, extra } = args;
  const prior = args.prior && args.prior.node === base.node && args.prior.completionId === step.completionId ? args.prior.outcome : undefined;
  const outcome = prior ?? ((await engine.verify(info, state, base.node, { completionId: step.completionId, stepId: step.id }, ctx ?? noopCallContext())) as VerificationOutcome);
  const attempt = base.blockedAttempts + 1;
  const run: VerificationRunEvent = {
    at: args.at(),
    kind: 'verification_run',
    node: base.node,
    completionId: step.completionId,
    stepId: step.id,
    parentStepId: info.parentStepId,
    ...outcome,
    attempt,
  };
  const shown = { verification: verificationAnswer(outcome) };
  if (outcome.cancelled) {
    const events = [...pre, run];
    const after = foldSessionEvents(state, events) as SessionState;
    return {
      events,
      result: await nodeAnswer(engine, workflow, after, after.head, 'advanced', { ...extra, ...shown }, { ctx }),
      cancelled: verificationCancelled(step.completionId, false),
      runId: outcome.runId,
    };
  }
  if (outcome.ranBy === 'server' && !outcome.verified) {
    const max = engine.verifier.maxAttempts;
    const exhausted = attempt >= max;
    const blockers = [{ code: 'verification_failed', pointer: '/verification', message: verificationFailedMessage(outcome) }];
    const blocked = { at: args.at(), kind: 'output_blocked', node: base.node, blockers, attempt, exhausted, ...common } as SessionEvent;
    const events = [...pre, run, blocked];
    const after = foldSessionEvents(state, events) as SessionState;
    const result = await blockedAnswer(engine, workflow, after, after.head, blockers, attempt, exhausted, { ...extra, ...shown }, {
      ctx,
      maxAttempts: max,
      sections: [verificationFailedSection(outcome, info.prompt)],
    });
    return { events, result, runId: outcome.runId };
  }
  // Verified, or handed to the agent (recorded unverified): the step is done.
  const completedSteps = [...base.completedSteps, step.completionId];
  const next = engine.engineAnswer(workflow, completedSteps, args.context);
  const node = state.nodeCount;
  const events: SessionEvent[] = [...pre, run, { at: args.at(), kind: 'step_completed', from: base.node, node, next: pointerOf(next.step), ...common } as SessionEvent];
  if (next.isComplete) {
    const all = [...(await args.history()).events, ...events];
    events.push({ at: args.at(), kind: 'session_completed', node, summary: summarizeRun(all, completedSteps, sessionProgress(workflow, completedSteps, null)) } as SessionEvent);
  }
  const after = foldSessionEvents(state, events) as SessionState;
  return { events, result: await nodeAnswer(engine, workflow, after, after.head, 'advanced', { ...extra, ...shown }, { ctx }), runId: outcome.runId };
}

/**
 * The answer while the command is still running after the call's wait (validate_task_loop's rule): the same step, the
 * same point's token to call again (to wait for the run or get its outcome), nothing recorded.
 */
export async function runningAnswer(engine: SessionEngine, state: SessionState, still: StillRunning, ctx: CallContext | undefined): Promise<SessionAnswer> {
  const workflow = await engine.workflowOf(state);
  return nodeAnswer(engine, workflow, state, state.head, 'running', {}, { ctx, sections: [verificationRunningSection(still.command, still.seconds, still.lastLine)] });
}
