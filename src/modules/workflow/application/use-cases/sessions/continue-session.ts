import { inject, injectable } from 'tsyringe';
import { actorOf, type CallContext } from '../../../../../kernel/call-context';
import { requireSessionVisible } from '../../services/session-reach';
import { WorkflowTokens } from '../../workflow.tokens';
import { Tokens } from '../../../../../kernel/tokens';
import type { Clock } from '../../../../../kernel/clock';
import type { UseCase } from '../../../../../kernel/use-case';
import { CancelledError, ConflictError, LimitExceededError, NotFoundError } from '../../../../../kernel/errors';
import { continueVerification, runBeforeLock, runningAnswer, type PriorRun } from './verification-step';
import type { Workflow } from '../../../domain/types';
import {
  foldSessionEvents,
  mergeContext,
  SessionTree,
  summarizeRun,
  sessionProgress,
  type Blocker,
  type NodeState,
  type SessionEvent,
  type SessionState,
} from '../../../domain/sessions';
import type { SessionHistory } from '../../ports/session-store';
import type { TokenClaims } from '../../ports/session-tokens';
import { checkContext, pointerOf, SessionEngine } from '../../services/session-engine';
import { blockedAnswer, nodeAnswer, type SessionAnswer } from './session-answer';
import { sendBack } from './audit-send-back';
import type { ToolInput, ToolOutput } from '../../../../../kernel/tools/tool-schema';
import type { workflowContinueSchemas } from '../../workflow-session.tool-schemas';
import { canAsk, InputRequest } from '../../../../../kernel/call-input';
import { confirmationQuestion, notConfirmedBlocker, stepConfirmation } from '../../../domain/guidance';

/** How long a continue waits for a verification command before answering "running": 45 s (MCP clients give up at 60 s). */
export const DEFAULT_VERIFICATION_WAIT_SECONDS = 45;

/** The key of a step's confirmation asked through input_required. */
export const CONFIRM_STEP_KEY = 'confirm_step';

/** The tool's input, as its schema describes it. */
export type ContinueSessionInput = ToolInput<typeof workflowContinueSchemas>;

/**
 * workflow_continue. Under the session's lock:
 * - the head token: the output is checked against the current step; it advances (new node) or is blocked (same
 *   node, attempt counted; at the limit the session needs a person);
 * - the same call made before (same token, same output and context): answered as it was, nothing recorded;
 * - an older token with a different output: `conflict` naming the head token, unless `fork: true` or the token is a
 *   checkpoint token — then the run forks from that point and the old branch stays in the log;
 * - a step that needs confirmation (`requireConfirmation`), when the caller can be asked (modern era, `ctx.input`):
 *   the person (or coordinator) is asked before the step counts as done (input_required, bound to this session point,
 *   step and output); a no blocks the step (as an assessment follow-up does), a new output is asked about again.
 */
@injectable()
export class ContinueSession implements UseCase<ContinueSessionInput, ToolOutput<typeof workflowContinueSchemas>> {
  constructor(
    @inject(WorkflowTokens.SessionEngine) private readonly engine: SessionEngine,
    @inject(Tokens.Clock) private readonly clock: Clock,
  ) {}

  async execute(input: ContinueSessionInput, ctx?: CallContext): Promise<SessionAnswer> {
    const claims = await this.engine.tokens.verify(input.continueToken, 'continueToken');
    this.checkArtifactsSize(input);
    const patch = checkContext(input.context);
    const hash = this.engine.outputHash(input.output, patch);
    // A verification step's command runs before the lock is taken (it may take minutes).
    const before = await runBeforeLock(this.engine, claims, hash, ctx, () => this.clock.now(), (input.waitSeconds ?? DEFAULT_VERIFICATION_WAIT_SECONDS) * 1000);
    // Still running past waitSeconds: "running", nothing recorded; the next call waits for it or gets its outcome.
    if (before && 'still' in before) {
      requireSessionVisible(before.state, ctx);
      return runningAnswer(this.engine, before.state, before.still, ctx);
    }
    const prior = before;
    let cancelled: string | undefined;
    // The running records of the commands this call ran: removed once their outcome is in the log (or lost with it).
    const runIds = prior?.outcome.runId ? [prior.outcome.runId] : [];
    let answer: SessionAnswer;
    try {
      answer = await this.engine.store.update(claims.sessionId, async (state, history) => {
        requireSessionVisible(state, ctx);
        const workflow = await this.engine.workflowOf(state);
        const change = await this.decide(workflow, state, history, claims, input, patch, hash, ctx, prior);
        cancelled = change.cancelled;
        if (change.runId) runIds.push(change.runId);
        // Every event this call writes keeps who made it.
        const actor = actorOf(ctx);
        return { events: change.events.map((e) => ({ ...e, actor })), result: change.result };
      });
    } finally {
      for (const id of runIds) await this.engine.store.clearRunningVerification(claims.sessionId, id).catch(() => undefined);
    }
    // A cancelled verification run is recorded in the timeline; the call itself ends cancelled.
    if (cancelled) throw new CancelledError(cancelled);
    return answer;
  }

  private async decide(
    workflow: Workflow,
    state: SessionState,
    history: () => Promise<SessionHistory>,
    claims: TokenClaims,
    input: ContinueSessionInput,
    patch: Record<string, unknown> | undefined,
    hash: string,
    ctx: CallContext | undefined,
    priorRun?: PriorRun,
  ): Promise<{ events: SessionEvent[]; result: SessionAnswer; cancelled?: string; runId?: string }> {
    const last = state.lastOutcome;
    // The fast path of a retried call (client timeout, the loser of a race with the same output): O(1). A blocked
    // verification is no such retry: the same empty output after a fix must run the command again.
    const verifying = state.head.node === claims.node && this.engine.verificationOf(workflow, state.head.current) !== undefined;
    if (last && last.from === claims.node && last.outputHash === hash) {
      if (last.kind === 'blocked' && state.head.node === claims.node && !verifying) {
        return { events: [], result: await blockedAnswer(this.engine, workflow, state, state.head, last.blockers ?? [], last.attempt ?? 1, !!last.exhausted, { replayed: true }) };
      }
      if (last.kind === 'advanced' && state.head.node === last.node) {
        return { events: [], result: await nodeAnswer(this.engine, workflow, state, state.head, 'advanced', { replayed: true }) };
      }
    }
    if (claims.node === state.head.node) {
      const events = claims.kind === 'resume' ? [this.event<SessionEvent>({ kind: 'session_resumed', node: claims.node })] : [];
      return this.proceed(workflow, state, history, state.head, events, input, patch, hash, ctx, undefined, priorRun);
    }

    // Off the head: read the whole log once.
    const tree = new SessionTree((await history()).events);
    if (!tree.has(claims.node)) throw new NotFoundError('session node', `${claims.sessionId}#${claims.node}`, `session '${claims.sessionId}' has no point ${claims.node}; the token does not belong to this session's log`);
    const prior = tree.priorOutcome(claims.node, hash);
    if (prior) {
      const node = tree.stateAt(prior.node) as NodeState;
      const result =
        prior.kind === 'blocked'
          ? await blockedAnswer(this.engine, workflow, state, node, prior.blockers, prior.attempt, prior.exhausted, { replayed: true })
          : await nodeAnswer(this.engine, workflow, { ...state, summary: node.current ? undefined : state.summary }, node, 'advanced', { replayed: true });
      return { events: [], result };
    }
    if (input.fork || claims.kind === 'checkpoint') {
      const base = tree.stateAt(claims.node) as NodeState;
      const forked = this.event<SessionEvent>({
        kind: 'forked',
        from: claims.node,
        previousHead: state.head.node,
        via: input.fork ? 'fork' : 'checkpoint',
        state: base,
      });
      return this.proceed(workflow, state, history, base, [forked], input, patch, hash, ctx, { from: claims.node, previousHead: state.head.node });
    }
    const headToken = await this.engine.tokens.sign({ kind: 'continue', sessionId: state.sessionId, node: state.head.node });
    const where = state.head.current ? `step '${state.head.current.title}' (${state.head.current.completionId})` : 'completion';
    throw new ConflictError(
      `continueToken is no longer the head of session '${state.sessionId}' (the run has moved on to ${where}) and this output differs from what was sent with it before; continue from the head with continueToken "${headToken}", or send fork: true with this token to branch the run from this point (the other branch is kept)`,
      { sessionId: state.sessionId, headToken, headNode: state.head.node, tokenNode: claims.node },
    );
  }

  /** Checks the output against the node's current step and advances or blocks. */
  private async proceed(
    workflow: Workflow,
    state: SessionState,
    history: () => Promise<SessionHistory>,
    base: NodeState,
    pre: SessionEvent[],
    input: ContinueSessionInput,
    patch: Record<string, unknown> | undefined,
    hash: string,
    ctx: CallContext | undefined,
    forked?: { from: number; previousHead: number },
    prior?: PriorRun,
  ): Promise<{ events: SessionEvent[]; result: SessionAnswer; cancelled?: string; runId?: string }> {
    const extra = forked ? { forked } : {};
    const context = mergeContext(base.context, patch);
    const here = this.engine.answer(workflow, base.completedSteps, context);
    if (here.isComplete || !here.step) {
      const after = foldSessionEvents(state, pre) as SessionState;
      return { events: pre, result: await nodeAnswer(this.engine, workflow, after, after.head, 'advanced', extra, { ctx }) };
    }
    const step = here.step;
    if (step.virtual?.kind === 'verification') {
      const common = {
        completionId: step.completionId,
        title: step.title,
        outputHash: hash,
        ...(input.output?.notesMarkdown !== undefined ? { notesMarkdown: input.output.notesMarkdown } : {}),
        ...(input.output?.artifacts !== undefined ? { artifacts: input.output.artifacts } : {}),
        ...(patch && Object.keys(patch).length ? { contextPatch: patch } : {}),
      };
      const at = () => new Date(this.clock.now()).toISOString();
      return continueVerification({ engine: this.engine, workflow, state, history, base, step, info: step.virtual, pre, common, context, prior, extra, ctx, at });
    }
    const completedSteps = [...base.completedSteps, step.completionId];
    // Current format: the engine's own output check (contracts, assessments, loop control) through workflow_next's
    // entry point; classic format: the step's validationCriteria on the notes.
    let blockers: Blocker[];
    let followup: string | undefined;
    let next: { isComplete: boolean; step: { id: string; title: string; completionId: string } | null; context: Record<string, unknown> };
    let memory: Record<string, unknown> = {};
    let r0: ReturnType<SessionEngine['engineAnswer']> | undefined;
    if (workflow.format === 'current') {
      const r = this.engine.engineAnswer(workflow, completedSteps, context, input.output ?? undefined);
      r0 = r;
      blockers = (r.blockers ?? []).map((b) => ({ code: b.code, pointer: b.pointer, message: b.message, ...(b.expected !== undefined ? { expected: b.expected } : {}) }));
      followup = r.followup;
      memory = this.engine.engineMemoryPatch(r.context);
      next = r;
    } else {
      blockers = this.engine.check(step, input.output, here.context);
      next = blockers.length ? { isComplete: false, step: null, context } : this.engine.engineAnswer(workflow, completedSteps, context);
    }
    if (r0?.sentBack) {
      const back = await sendBack({ engine: this.engine, event: (f) => this.event(f), workflow, state, history, base, pre, completionId: step.completionId, sentBack: r0.sentBack, input, extra, ctx });
      if (back) return back;
    }
    const withMemory = { ...(patch ?? {}), ...memory };
    const common = {
      completionId: step.completionId,
      title: step.title,
      outputHash: hash,
      ...(input.output?.notesMarkdown !== undefined ? { notesMarkdown: input.output.notesMarkdown } : {}),
      ...(input.output?.artifacts !== undefined ? { artifacts: input.output.artifacts } : {}),
      ...(Object.keys(withMemory).length ? { contextPatch: withMemory } : {}),
    };
    const confirmation = blockers.length || followup ? undefined : stepConfirmation(step);
    if (confirmation && canAsk(ctx?.input, 'confirm')) {
      // The answer counts for this point of this session, this step and this very output only.
      const subject = JSON.stringify({ session: state.sessionId, node: base.node, step: step.completionId, output: hash });
      const answer = ctx.input.answer(CONFIRM_STEP_KEY, subject);
      if (!answer) throw InputRequest.confirm(CONFIRM_STEP_KEY, confirmationQuestion(step.title, confirmation.by, input.output?.notesMarkdown), subject);
      if (!answer.accepted) {
        const shown: Blocker[] = [{ code: 'not_confirmed', pointer: '', message: notConfirmedBlocker(step.title, confirmation.by) }];
        const attempt = Math.max(base.blockedAttempts, 1);
        const events = [...pre, this.event<SessionEvent>({ kind: 'output_blocked', node: base.node, blockers: shown, attempt, exhausted: false, ...common })];
        const after = foldSessionEvents(state, events) as SessionState;
        return { events, result: await blockedAnswer(this.engine, workflow, after, after.head, shown, attempt, false, extra) };
      }
    }
    if (blockers.length || followup) {
      // An assessment follow-up sends the agent back to the same step with guidance: answered like a blocked output
      // (code assessment_followup) but not counted as a failed attempt.
      const attempt = followup && !blockers.length ? base.blockedAttempts : base.blockedAttempts + 1;
      const exhausted = !followup && attempt >= this.engine.maxBlockedAttempts;
      const shown = blockers.length ? blockers : [{ code: 'assessment_followup', pointer: '/artifacts', message: followup as string }];
      const events = [...pre, this.event<SessionEvent>({ kind: 'output_blocked', node: base.node, blockers: shown, attempt: Math.max(attempt, 1), exhausted, ...common })];
      const after = foldSessionEvents(state, events) as SessionState;
      return { events, result: await blockedAnswer(this.engine, workflow, after, after.head, shown, Math.max(attempt, 1), exhausted, extra, { ctx }) };
    }
    const node = state.nodeCount;
    const events: SessionEvent[] = [...pre, this.event<SessionEvent>({ kind: 'step_completed', from: base.node, node, next: pointerOf(next.step), ...common })];
    if (next.isComplete) {
      const all = [...(await history()).events, ...events];
      events.push(this.event<SessionEvent>({ kind: 'session_completed', node, summary: summarizeRun(all, completedSteps, sessionProgress(workflow, completedSteps, null)) }));
    }
    const after = foldSessionEvents(state, events) as SessionState;
    return { events, result: await nodeAnswer(this.engine, workflow, after, after.head, 'advanced', extra, { ctx }) };
  }

  /** One output's artifacts are capped (they are logged and answered back): refused before anything is read or written. */
  private checkArtifactsSize(input: ContinueSessionInput): void {
    const artifacts = input.output?.artifacts;
    if (artifacts === undefined) return;
    const size = Buffer.byteLength(JSON.stringify(artifacts));
    const max = this.engine.artifactsMaxBytes;
    if (size > max) {
      throw new LimitExceededError(
        `output.artifacts: ${size} bytes as JSON, more than the ${max} one output may carry (--session-artifacts-mb); keep large files in the workspace and pass their paths`,
        { limit: 'session-artifacts-mb', max, size, field: 'output.artifacts' },
      );
    }
  }

  private event<E extends SessionEvent>(fields: Omit<E, 'at'> | Record<string, unknown>): E {
    return { at: new Date(this.clock.now()).toISOString(), ...fields } as E;
  }
}
