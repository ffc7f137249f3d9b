import { inject, injectable } from 'tsyringe';
import type { UseCase } from '../../../../kernel/use-case';
import type { CallContext } from '../../../../kernel/call-context';
import { NotFoundError } from '../../../../kernel/errors';
import { reachOf } from '../../../../kernel/reach';
import type { GraphRunRecord } from '../../domain/graph-run-record';
import { runPath, type RunPath } from '../../domain/run-path';
import { GraphTokens } from '../graph.tokens';
import type { GraphRunStore } from '../ports/graph-run-store';

/**
 * A recorded run with the path it took over its recorded executions (how often each node ran, the edges taken): what
 * the dashboard's run page marks on the drawing. A run recorded in part (`truncated`) has the path of its last ones.
 */
export type GraphRunWithPath = GraphRunRecord & { path: RunPath };

/** One recorded graph run with its node executions. @throws NotFoundError for an unknown or forgotten run. */
@injectable()
export class GetGraphRun implements UseCase<{ runId: string }, GraphRunWithPath> {
  constructor(@inject(GraphTokens.GraphRunStore) private readonly store: GraphRunStore) {}

  /** Another identity's run is answered as an unknown one (admin sees every run). */
  async execute(input: { runId: string }, ctx?: CallContext): Promise<GraphRunWithPath> {
    const record = await this.store.get(input.runId);
    if (!reachOf(ctx).owns(record.actor?.name)) throw new NotFoundError('graph run', input.runId, `graph run '${input.runId}' is not recorded`);
    return { ...record, path: runPath(record.executions) };
  }
}
