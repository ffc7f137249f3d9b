import { inject, injectable } from 'tsyringe';
import type { UseCase } from '../../../../kernel/use-case';
import type { CallContext } from '../../../../kernel/call-context';
import { NotFoundError } from '../../../../kernel/errors';
import { reachOf } from '../../../../kernel/reach';
import type { GraphRunRecord } from '../../domain/graph-run-record';
import { GraphTokens } from '../graph.tokens';
import type { GraphRunStore } from '../ports/graph-run-store';

/** One recorded graph run with its node executions. @throws NotFoundError for an unknown or forgotten run. */
@injectable()
export class GetGraphRun implements UseCase<{ runId: string }, GraphRunRecord> {
  constructor(@inject(GraphTokens.GraphRunStore) private readonly store: GraphRunStore) {}

  /** Another identity's run is answered as an unknown one (admin sees every run). */
  async execute(input: { runId: string }, ctx?: CallContext): Promise<GraphRunRecord> {
    const record = await this.store.get(input.runId);
    if (!reachOf(ctx).owns(record.actor?.name)) throw new NotFoundError('graph run', input.runId, `graph run '${input.runId}' is not recorded`);
    return record;
  }
}
