import { inject, injectable } from 'tsyringe';
import { actorOf, type CallContext } from '../../../../../kernel/call-context';
import { requireSessionVisible } from '../../services/session-reach';
import { WorkflowTokens } from '../../workflow.tokens';
import { Tokens } from '../../../../../kernel/tokens';
import type { Clock } from '../../../../../kernel/clock';
import type { UseCase } from '../../../../../kernel/use-case';
import { NotFoundError } from '../../../../../kernel/errors';
import { SessionTree, type SessionEvent, type StepPointer } from '../../../domain/sessions';
import { SessionEngine } from '../../services/session-engine';
import type { ToolInput, ToolOutput } from '../../../../../kernel/tools/tool-schema';
import type { workflowCheckpointSchemas } from '../../workflow-session.tool-schemas';

/** The tool's input, as its schema describes it. */
export type CheckpointSessionInput = ToolInput<typeof workflowCheckpointSchemas>;

/**
 * The tool's answer, as its output schema describes it: `checkpointToken` is a continueToken that resumes (forks)
 * from this point; `step` is the step current there (null when the workflow was complete).
 */
export type CheckpointSessionOutput = ToolOutput<typeof workflowCheckpointSchemas>;

/** workflow_checkpoint: marks the point a continue token stands for, and returns a token to come back to it. */
@injectable()
export class CheckpointSession implements UseCase<CheckpointSessionInput, CheckpointSessionOutput> {
  constructor(
    @inject(WorkflowTokens.SessionEngine) private readonly engine: SessionEngine,
    @inject(Tokens.Clock) private readonly clock: Clock,
  ) {}

  async execute(input: CheckpointSessionInput, ctx?: CallContext): Promise<CheckpointSessionOutput> {
    const claims = await this.engine.tokens.verify(input.continueToken, 'continueToken');
    return this.engine.store.update(claims.sessionId, async (state, history) => {
      requireSessionVisible(state, ctx);
      let step: StepPointer | null;
      if (claims.node === state.head.node) step = state.head.current;
      else {
        const node = new SessionTree((await history()).events).stateAt(claims.node);
        if (!node) throw new NotFoundError('session node', `${claims.sessionId}#${claims.node}`, `session '${claims.sessionId}' has no point ${claims.node}`);
        step = node.current;
      }
      const note = input.note?.trim() ? input.note.trim() : undefined;
      const event: SessionEvent = { kind: 'checkpoint_created', at: new Date(this.clock.now()).toISOString(), actor: actorOf(ctx), node: claims.node, ...(note ? { note } : {}) };
      const checkpointToken = await this.engine.tokens.sign({ kind: 'checkpoint', sessionId: claims.sessionId, node: claims.node });
      return { events: [event], result: { sessionId: claims.sessionId, checkpointToken, step, ...(note ? { note } : {}) } };
    });
  }
}
