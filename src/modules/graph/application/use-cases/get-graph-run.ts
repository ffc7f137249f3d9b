import { inject, injectable } from 'tsyringe';
import type { UseCase } from '../../../../kernel/use-case';
import type { GraphRunRecord } from '../../domain/graph-run-record';
import { GraphTokens } from '../graph.tokens';
import type { GraphRunStore } from '../ports/graph-run-store';

/** One recorded graph run with its node executions. @throws NotFoundError for an unknown or forgotten run. */
@injectable()
export class GetGraphRun implements UseCase<{ runId: string }, GraphRunRecord> {
  constructor(@inject(GraphTokens.GraphRunStore) private readonly store: GraphRunStore) {}

  execute(input: { runId: string }): Promise<GraphRunRecord> {
    return this.store.get(input.runId);
  }
}
