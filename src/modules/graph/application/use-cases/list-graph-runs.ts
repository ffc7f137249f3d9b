import { inject, injectable } from 'tsyringe';
import type { UseCase } from '../../../../kernel/use-case';
import type { GraphRunSummary } from '../../domain/graph-run-record';
import { GraphTokens } from '../graph.tokens';
import type { GraphRunStore } from '../ports/graph-run-store';

export interface ListGraphRunsInput {
  tool?: string;
  /** Default 50. */
  limit?: number;
}

/** Recorded graph runs (every process sharing the data dir records its runs), newest first. */
@injectable()
export class ListGraphRuns implements UseCase<ListGraphRunsInput, { runs: GraphRunSummary[] }> {
  constructor(@inject(GraphTokens.GraphRunStore) private readonly store: GraphRunStore) {}

  async execute(input: ListGraphRunsInput): Promise<{ runs: GraphRunSummary[] }> {
    return { runs: await this.store.list({ ...(input.tool !== undefined ? { tool: input.tool } : {}), limit: input.limit ?? 50 }) };
  }
}
