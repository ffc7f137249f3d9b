import { inject, injectable } from 'tsyringe';
import { actorOf, type CallContext } from '../../../../../kernel/call-context';
import type { UseCase } from '../../../../../kernel/use-case';
import { GraphTokens } from '../../graph.tokens';
import type { DebugRunView, GraphDebugRuns } from '../../services/graph-debug-runs';

export interface StartGraphDebugRunInput {
  tool: string;
  args: unknown;
  /** Node ids to hold before. */
  breakpoints?: string[];
  /** Hold before the entry node. */
  startPaused?: boolean;
}

/** Who drives a debug run from the dashboard: the dashboard caller's identity, through the dashboard. */
export const DEBUGGER_CLIENT = 'dashboard';

/**
 * Starts a debug run of a served graph tool (the dashboard's Debug button): the same engine, argument check, limits and
 * recording as a tool call, with breakpoints; answers once the run holds (or after a second) with what it is doing.
 * @throws NotFoundError for a tool not served; InvalidArgumentsError for a breakpoint on no node of the tool.
 */
@injectable()
export class StartGraphDebugRun implements UseCase<StartGraphDebugRunInput, DebugRunView> {
  constructor(@inject(GraphTokens.GraphDebugRuns) private readonly runs: GraphDebugRuns) {}

  execute(input: StartGraphDebugRunInput, ctx?: CallContext): Promise<DebugRunView> {
    return this.runs.start({ ...input, actor: { ...actorOf(ctx), client: ctx?.client ?? DEBUGGER_CLIENT } });
  }
}
