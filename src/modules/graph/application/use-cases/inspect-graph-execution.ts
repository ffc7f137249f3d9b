import { inject, injectable } from 'tsyringe';
import { GraphTokens } from '../graph.tokens';
import type { NodeExecutionRecord } from '../../domain/types';
import type { GraphExecutionInspector, InspectedExecution } from '../ports/graph-execution-inspector';
import type { GraphToolCatalog } from '../ports/graph-tool-catalog';
import { drawGraphTool, type GraphDrawing } from '../../domain/graph-run-record';
import { runPath, type RunPath } from '../../domain/run-path';
import { ToolResultWithMeta } from '../../../../kernel/tools/tool-definition';
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
 * The `_meta` key of what the graph run view draws (ui://workgraph/graph-run, docs/mcp-apps.md): the run's tool as a
 * graph and the path the run took through it. Only for a client that shows MCP Apps views (`ctx.showsViews`): the
 * model needs none of it (it has the history), and every other client gets exactly the result it got before.
 */
export const RUN_GRAPH_META_KEY = 'workgraph/runGraph';

/** What the view draws: the tool's nodes and edges (as the dashboard draws them) and the run's path over them. */
export type RunGraph = { tool: string } & GraphDrawing & RunPath;

type Output = ToolOutput<typeof graphInspectSchemas>;

/**
 * graph_inspect: the history of a recent graph run (paged), or — with `executionIndex` — one node execution and the
 * context that node saw, reconstructed without replaying expressions.
 */
@injectable()
export class InspectGraphExecution implements UseCase<InspectGraphExecutionInput, Output | ToolResultWithMeta<Output>> {
  constructor(
    @inject(GraphTokens.GraphHost) private readonly runs: GraphExecutionInspector,
    @inject(GraphTokens.GraphHost) private readonly catalog: Pick<GraphToolCatalog, 'toolDefinition'>,
  ) {}

  execute(input: InspectGraphExecutionInput, ctx?: CallContext): InspectGraphExecutionOutput | ToolResultWithMeta<InspectGraphExecutionOutput> {
    const state = this.runs.getExecutionState(input.executionId);
    const out = this.inspect(input, state, ctx);
    if (!ctx?.showsViews) return out;
    const graph = this.runGraph(state);
    return graph ? new ToolResultWithMeta(out, { [RUN_GRAPH_META_KEY]: graph }) : out;
  }

  /**
   * The run's tool drawn with the run's path, when this process serves the tool (a run of a tool since removed from
   * its graph file has no drawing: the view then shows the timeline alone).
   */
  private runGraph(state: InspectedExecution): RunGraph | undefined {
    const served = this.catalog.toolDefinition(state.tool);
    if (!served) return undefined;
    return { tool: state.tool, ...drawGraphTool(served.tool), ...runPath(state.history) };
  }

  private inspect(input: InspectGraphExecutionInput, state: InspectedExecution, ctx?: CallContext): InspectGraphExecutionOutput {
    const { executionId, executionIndex } = input;
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
