import { inject, injectable } from 'tsyringe';
import { GraphTokens } from '../graph.tokens';
import type { NodeExecutionRecord } from '../../domain/types';
import type { GraphExecutionInspector, InspectedExecution } from '../ports/graph-execution-inspector';
import type { UseCase } from '../../../../kernel/use-case';
import type { CallContext } from '../../../../kernel/call-context';
import { NotFoundError } from '../../../../kernel/errors';
import { reachOf } from '../../../../kernel/reach';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { graphInspectSchemas } from '../graph.tool-schemas';

/** The tool's input, as its schema describes it. */
export type InspectGraphExecutionInput = ToolInput<typeof graphInspectSchemas>;

export type InspectGraphExecutionOutput =
  | (Omit<InspectedExecution, 'history'> & { history: NodeExecutionRecord[]; historyOffset: number; historyTotal: number })
  | { executionId: string; executionIndex: number; record: NodeExecutionRecord; context: Record<string, unknown> };

export const DEFAULT_HISTORY_PAGE = 100;

/**
 * graph_inspect: the history of a recent graph run (paged), or — with `executionIndex` — one node execution and the
 * context that node saw, reconstructed without replaying expressions.
 */
@injectable()
export class InspectGraphExecution implements UseCase<InspectGraphExecutionInput, ToolOutput<typeof graphInspectSchemas>> {
  constructor(@inject(GraphTokens.GraphHost) private readonly runs: GraphExecutionInspector) {}

  execute(input: InspectGraphExecutionInput, ctx?: CallContext): InspectGraphExecutionOutput {
    const { executionId, executionIndex } = input;
    const state = this.runs.getExecutionState(executionId);
    // A run belongs to the identity that ran it (admin sees every run): another's is answered as an unknown one.
    if (!reachOf(ctx).owns(state.actor?.name)) {
      throw new NotFoundError('execution', executionId, `execution '${executionId}' not found (only the last runs are kept)`);
    }
    if (executionIndex !== undefined) {
      return {
        executionId,
        executionIndex,
        record: this.runs.getExecutionByIndex(executionId, executionIndex),
        context: this.runs.getContextForExecution(executionId, executionIndex),
      };
    }
    const offset = input.offset ?? 0;
    const limit = input.limit ?? DEFAULT_HISTORY_PAGE;
    return {
      executionId: state.executionId,
      tool: state.tool,
      status: state.status,
      currentNodeId: state.currentNodeId,
      executionCount: state.executionCount,
      startTime: state.startTime,
      ...(state.endTime !== undefined ? { endTime: state.endTime } : {}),
      ...(state.result !== undefined ? { result: state.result } : {}),
      ...(state.error !== undefined ? { error: state.error } : {}),
      ...(state.actor !== undefined ? { actor: state.actor } : {}),
      history: state.history.slice(offset, offset + limit),
      historyOffset: offset,
      historyTotal: state.history.length,
    };
  }
}
