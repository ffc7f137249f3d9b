import { inject, injectable } from 'tsyringe';
import { GraphTokens } from '../graph.tokens';
import type { NodeExecutionRecord } from '../../domain/types';
import type { GraphExecutionInspector, InspectedExecution } from '../ports/graph-execution-inspector';
import type { GraphToolCatalog } from '../ports/graph-tool-catalog';
import { drawGraphTool, type GraphDrawing, type GraphRunRecord } from '../../domain/graph-run-record';
import { toolOfDefinition } from '../../domain/graph-tool-definition';
import type { GraphTool } from '../../domain/types';
import type { GraphRunStore } from '../ports/graph-run-store';
import { inspectedFromRecord, recordedExecution, recordedPage } from '../services/recorded-run-inspection';
import { runPath, type RunPath } from '../../domain/run-path';
import { ToolResultWithMeta } from '../../../../kernel/tools/tool-definition';
import type { UseCase } from '../../../../kernel/use-case';
import type { CallContext } from '../../../../kernel/call-context';
import { isWorkgraphError, NotFoundError } from '../../../../kernel/errors';
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

/** Where graph_inspect found the run: this process's engine, or the run store's record of it. */
type Found = { state: InspectedExecution; record?: undefined } | { state: InspectedExecution; record: GraphRunRecord };

/**
 * graph_inspect: the history of a graph run (paged), or — with `executionIndex` — one node execution and the context
 * that node saw, reconstructed without replaying expressions. A run this process holds is answered from its engine
 * (every execution, as it is now); any other — a run of another process sharing the data dir or the database, one
 * this process no longer keeps — from its record in the run store (a run still going: its live record, saved every
 * ~250 ms), so a view of it can follow it wherever it runs (docs/mcp-apps.md "Live views").
 */
@injectable()
export class InspectGraphExecution implements UseCase<InspectGraphExecutionInput, Output | ToolResultWithMeta<Output>> {
  constructor(
    @inject(GraphTokens.GraphHost) private readonly runs: GraphExecutionInspector,
    @inject(GraphTokens.GraphHost) private readonly catalog: Pick<GraphToolCatalog, 'toolDefinition'>,
    @inject(GraphTokens.GraphRunStore) private readonly store?: Pick<GraphRunStore, 'get'>,
  ) {}

  async execute(input: InspectGraphExecutionInput, ctx?: CallContext): Promise<InspectGraphExecutionOutput | ToolResultWithMeta<InspectGraphExecutionOutput>> {
    const found = await this.find(input.executionId);
    // A run belongs to the identity that ran it (admin sees every run): another's is answered as an unknown one.
    if (!found || !reachOf(ctx).owns(found.state.actor?.name)) throw notFound(input.executionId);
    const out = this.inspect(input, found);
    if (!ctx?.showsViews) return out;
    const graph = this.runGraph(found);
    return graph ? new ToolResultWithMeta(out, { [RUN_GRAPH_META_KEY]: graph }) : out;
  }

  private async find(executionId: string): Promise<Found | undefined> {
    try {
      return { state: this.runs.getExecutionState(executionId) };
    } catch (e) {
      if (!isWorkgraphError(e) || e.code !== 'not_found' || !this.store) throw e;
    }
    try {
      const record = await this.store.get(executionId);
      return { state: inspectedFromRecord(record), record };
    } catch (e) {
      if (isWorkgraphError(e) && e.code === 'not_found') return undefined;
      throw e;
    }
  }

  /**
   * The run's tool drawn with the run's path: the tool as this process serves it, or a draft's run as it ran (its
   * record keeps the definition). A run of a tool not served here has no drawing: the view then shows the timeline.
   */
  private runGraph({ state, record }: Found): RunGraph | undefined {
    const tool: GraphTool | undefined = record?.definition ? toolOfDefinition(record.definition) : this.catalog.toolDefinition(state.tool)?.tool;
    if (!tool) return undefined;
    return { tool: state.tool, ...drawGraphTool(tool), ...runPath(state.history) };
  }

  private inspect(input: InspectGraphExecutionInput, { state, record }: Found): InspectGraphExecutionOutput {
    const { executionId, executionIndex } = input;
    if (executionIndex !== undefined) {
      const one = record
        ? recordedExecution(record, executionIndex)
        : { record: this.runs.getExecutionByIndex(executionId, executionIndex), context: this.runs.getContextForExecution(executionId, executionIndex) };
      return { executionId, executionIndex, ...one };
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
      history: record ? recordedPage(record, offset, limit) : state.history.slice(offset, offset + limit),
      historyOffset: offset,
      historyTotal: record ? record.nodeExecutions : state.history.length,
    };
  }
}

function notFound(executionId: string): NotFoundError {
  return new NotFoundError('execution', executionId, `execution '${executionId}' not found (only the last runs are kept)`);
}
