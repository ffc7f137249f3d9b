import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../../kernel/call-context';
import { InvalidArgumentsError } from '../../../../../kernel/errors';
import { reachOf } from '../../../../../kernel/reach';
import type { UseCase } from '../../../../../kernel/use-case';
import { GraphTokens } from '../../graph.tokens';
import type { DebugAction, DebugRunView, GraphDebugRuns } from '../../services/graph-debug-runs';

export type ControlGraphDebugRunInput = { runId: string; action: DebugAction } | { runId: string; action: 'breakpoints'; nodeIds: string[] };

const ACTIONS = new Set(['pause', 'resume', 'step', 'stop', 'breakpoints']);

/**
 * Drives a debug run: pause, resume, step (one node), stop, or replace its breakpoints; answers the run's view after.
 * @throws NotFoundError; InvalidTransitionError when the run's status does not allow it (step unless paused, anything
 *   on an ended run); InvalidArgumentsError for an unknown action or a breakpoint on no node of the tool.
 */
@injectable()
export class ControlGraphDebugRun implements UseCase<ControlGraphDebugRunInput, DebugRunView> {
  constructor(@inject(GraphTokens.GraphDebugRuns) private readonly runs: GraphDebugRuns) {}

  async execute(input: ControlGraphDebugRunInput, ctx?: CallContext): Promise<DebugRunView> {
    if (!ACTIONS.has(input.action)) throw new InvalidArgumentsError(`action: expected one of ${[...ACTIONS].join(', ')} (got '${String(input.action)}')`, 'action');
    const reach = reachOf(ctx);
    if (input.action === 'breakpoints') return this.runs.setBreakpoints(input.runId, input.nodeIds, reach);
    return this.runs.control(input.runId, input.action, reach);
  }
}
