import { inject, injectable } from 'tsyringe';
import { actorOf, type CallContext } from '../../../../kernel/call-context';
import type { UseCase } from '../../../../kernel/use-case';
import { GraphTokens } from '../graph.tokens';
import type { GraphToolCatalog } from '../ports/graph-tool-catalog';

/**
 * Runs a served graph tool to its end (the dashboard's "run" form): the same engine and argument validation as the
 * tool call. The run is recorded like any other.
 * @throws NotFoundError for a tool not served; what the run throws (invalid_arguments for bad arguments, …).
 */
@injectable()
export class RunGraphTool implements UseCase<{ tool: string; args: unknown }, { runId: string; output: unknown }> {
  constructor(@inject(GraphTokens.GraphHost) private readonly catalog: GraphToolCatalog) {}

  async execute(input: { tool: string; args: unknown }, ctx?: CallContext): Promise<{ runId: string; output: unknown }> {
    const handle = this.catalog.executeTool(input.tool, input.args, { ...(ctx?.signal ? { signal: ctx.signal } : {}), actor: actorOf(ctx) });
    try {
      const { result } = await handle.promise;
      return { runId: handle.executionId, output: result };
    } catch (e) {
      if (e && typeof e === 'object' && 'details' in e) ((e as { details: Record<string, unknown> }).details).executionId = handle.executionId;
      throw e;
    }
  }
}
