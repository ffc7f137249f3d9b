import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../../kernel/call-context';
import { reachOf } from '../../../../../kernel/reach';
import type { UseCase } from '../../../../../kernel/use-case';
import { GraphTokens } from '../../graph.tokens';
import type { DebugRunView, GraphDebugRuns } from '../../services/graph-debug-runs';

/**
 * A debug run now: status, the node it is at, its breakpoints and — paused — the context and newest history the node
 * it holds before reads. @throws NotFoundError for a run this process does not hold (or another identity's).
 */
@injectable()
export class GetGraphDebugRun implements UseCase<{ runId: string }, DebugRunView> {
  constructor(@inject(GraphTokens.GraphDebugRuns) private readonly runs: GraphDebugRuns) {}

  execute(input: { runId: string }, ctx?: CallContext): DebugRunView {
    return this.runs.get(input.runId, reachOf(ctx));
  }
}
