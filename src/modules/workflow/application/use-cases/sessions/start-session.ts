import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../../workflow.tokens';
import { Tokens } from '../../../../../kernel/tokens';
import type { Clock } from '../../../../../kernel/clock';
import type { CallContext } from '../../../../../kernel/call-context';
import type { UseCase } from '../../../../../kernel/use-case';
import { foldSessionEvent, summarizeRun, type SessionStartedEvent } from '../../../domain/sessions';
import { checkContext, pointerOf, SessionEngine } from '../../services/session-engine';
import { nodeAnswer, type SessionAnswer } from './session-answer';

export interface StartSessionInput {
  workflowId: string;
  goal?: string;
  workspacePath?: string;
  gitBranch?: string;
  context?: Record<string, unknown>;
}

/**
 * workflow_start: pins the workflow by content hash, creates the session (folder, first event, snapshot, index
 * entry) and hands out the first step with a continue token and a checkpoint token of the very beginning.
 */
@injectable()
export class StartSession implements UseCase<StartSessionInput, SessionAnswer> {
  constructor(
    @inject(WorkflowTokens.SessionEngine) private readonly engine: SessionEngine,
    @inject(Tokens.Clock) private readonly clock: Clock,
  ) {}

  async execute(input: StartSessionInput, ctx?: CallContext): Promise<SessionAnswer> {
    const context = checkContext(input.context) ?? {};
    const workflow = await this.engine.storage.get(input.workflowId);
    const { text, hash } = this.engine.pin(workflow);
    // The session runs the pinned text from now on: parse it back so even the first answer comes from it.
    const pinned = JSON.parse(text) as typeof workflow;
    const first = this.engine.answer(pinned, [], context);
    const workspacePath = await this.engine.workspaceOf(input.workspacePath, ctx);
    const event: SessionStartedEvent = {
      kind: 'session_started',
      at: new Date(this.clock.now()).toISOString(),
      sessionId: this.engine.tokens.newSessionId(),
      workflowId: workflow.id,
      workflowVersion: workflow.version,
      workflowHash: hash,
      ...(input.goal ? { goal: input.goal } : {}),
      ...(workspacePath ? { workspacePath } : {}),
      ...(input.gitBranch ? { gitBranch: input.gitBranch } : {}),
      context,
      next: pointerOf(first.step),
    };
    let state = await this.engine.store.create(event, text);
    if (first.isComplete) {
      // A workflow with no eligible step is complete at once; the log says so.
      state = await this.engine.store.update(state.sessionId, async (s) => {
        const done = { kind: 'session_completed' as const, at: event.at, node: 0, summary: summarizeRun([event], []) };
        return { events: [done], result: foldSessionEvent(s, done) };
      });
    }
    const checkpointToken = await this.engine.tokens.sign({ kind: 'checkpoint', sessionId: state.sessionId, node: 0 });
    return nodeAnswer(this.engine, pinned, state, state.head, 'started', { checkpointToken });
  }
}
