import { inject, injectable } from 'tsyringe';
import { InvalidArgumentsError, isWorkgraphError } from '../../../../../kernel/errors';
import { actorOf, type CallContext } from '../../../../../kernel/call-context';
import type { UseCase } from '../../../../../kernel/use-case';
import type { ToolInput, ToolOutput } from '../../../../../kernel/tools/tool-schema';
import { buildRunRecord } from '../../engine/run-record-builder';
import type { FinalRunStatus } from '../../../domain/graph-run-record';
import type { ExecutionHandle } from '../../engine/execution-types';
import { GraphTokens } from '../../graph.tokens';
import type { graphToolRunSchemas } from '../../graph-tool-edit.tool-schemas';
import type { GraphFileEditor } from '../../ports/graph-file-editor';
import type { GraphToolCatalog } from '../../ports/graph-tool-catalog';

type RunInput = ToolInput<typeof graphToolRunSchemas>;
type RunOutput = ToolOutput<typeof graphToolRunSchemas>;

const DEFAULT_HISTORY_LIMIT = 100;

/**
 * graph_tool_run (mcpgraph's runGraphTool): runs a served tool, or a tool definition not saved — inside a graph file
 * (its MCP servers and execution limits; the file as it would be with the tool added or replacing its namesake,
 * checked as a load checks it, never written) or alone with `--mcp-config`'s servers. The same engine, limits and
 * recording as any run; the run's failure is an answer (status `failed` and its error), not a tool error.
 * @throws InvalidArgumentsError unless exactly one of `name` and `tool` is given; InvalidGraphError for a definition
 *   that would not load (file:line:col of every problem); NotFoundError for an unknown tool or file.
 */
@injectable()
export class RunGraphToolDraft implements UseCase<RunInput, RunOutput> {
  constructor(
    @inject(GraphTokens.GraphHost) private readonly catalog: GraphToolCatalog,
    @inject(GraphTokens.GraphFileEditor) private readonly editor: GraphFileEditor,
  ) {}

  async execute(input: RunInput, ctx?: CallContext): Promise<RunOutput> {
    if ((input.name === undefined) === (input.tool === undefined)) {
      throw new InvalidArgumentsError('name, tool: give exactly one: the name of a served tool, or a tool definition to run unsaved', input.name === undefined ? 'tool' : 'name');
    }
    if (input.file !== undefined && input.tool === undefined) throw new InvalidArgumentsError('file: only with `tool` (a served tool runs in its own file)', 'file');
    const options = { ...(ctx?.signal ? { signal: ctx.signal } : {}), actor: actorOf(ctx) };
    let handle: ExecutionHandle;
    if (input.tool !== undefined) {
      const tool = input.tool as Record<string, unknown>;
      const file = input.file === undefined ? undefined : await this.editor.locate(input.file, 'file');
      const graph = await this.editor.draft(file, tool);
      handle = this.catalog.executeDraft(graph, String(tool.name), input.arguments, options);
    } else {
      handle = this.catalog.executeTool(input.name!, input.arguments, options);
    }
    await handle.promise.catch((e: unknown) => {
      if (!isWorkgraphError(e) && !(e instanceof Error)) throw e;
    });
    const state = this.catalog.getExecutionState(handle.executionId);
    const record = buildRunRecord(state, input.arguments, {}, input.historyLimit ?? DEFAULT_HISTORY_LIMIT);
    return {
      executionId: handle.executionId,
      // The run has ended (awaited above): its record's status is a final one.
      status: record.status as FinalRunStatus,
      ...(record.status === 'completed' ? { result: record.result } : {}),
      ...(record.runError ? { error: { code: record.runError.code, message: record.runError.message, ...(record.runError.nodeId ? { nodeId: record.runError.nodeId } : {}) } } : {}),
      nodeExecutions: record.nodeExecutions,
      durationMs: record.durationMs,
      history: record.executions.map((e) => ({
        executionIndex: e.executionIndex,
        nodeId: e.nodeId,
        nodeType: e.nodeType,
        durationMs: e.duration,
        ...(e.output !== undefined ? { output: e.output } : {}),
        ...(e.error ? { error: { code: e.error.code, message: e.error.message } } : {}),
      })),
      truncated: record.truncated,
    };
  }
}
