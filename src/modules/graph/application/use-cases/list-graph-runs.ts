import { inject, injectable } from 'tsyringe';
import type { UseCase } from '../../../../kernel/use-case';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
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

  /** Only the runs of the caller's identity (every run with admin). */
  async execute(input: ListGraphRunsInput, ctx?: CallContext): Promise<{ runs: GraphRunSummary[] }> {
    const reach = reachOf(ctx);
    const runs = await this.store.list({ ...(input.tool !== undefined ? { tool: input.tool } : {}), limit: input.limit ?? 50 });
    return { runs: runs.filter((r) => reach.owns(r.actor?.name)) };
  }
}
