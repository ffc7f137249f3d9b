import { inject, injectable } from 'tsyringe';
import { NotFoundError } from '../../../../kernel/errors';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import type { UseCase } from '../../../../kernel/use-case';
import { drawGraphTool, type GraphDrawing, type GraphRunRecord, type GraphRunSummary } from '../../domain/graph-run-record';
import { toolOfDefinition } from '../../domain/graph-tool-definition';
import type { GraphTool } from '../../domain/types';
import { GraphTokens } from '../graph.tokens';
import type { GraphRunStore } from '../ports/graph-run-store';
import type { GraphToolCatalog } from '../ports/graph-tool-catalog';

export interface GraphToolDescription extends GraphDrawing {
  name: string;
  description: string;
  file: string;
  loaded: boolean;
  nodeCount: number;
  runs: number;
  inputSchema?: Record<string, unknown>;
  recentRuns: GraphRunSummary[];
  /** When drawn from a draft's run (graph_tool_run with `tool`): that run's id. */
  draftRun?: string;
}

/**
 * A graph tool drawn from its file (node types, switch conditions on the edges) with its recorded runs. A tool this
 * process does not serve is drawn from the file its latest recorded run names — or, for a draft's run (graph_tool_run
 * with a definition not saved), from the definition the run kept. With `runId`, the tool as that run ran it: a draft
 * run's own definition (the served tool of the same name may differ), else as above.
 * @throws NotFoundError when the tool is neither served nor named by a recorded run, or `runId` is not recorded.
 */
@injectable()
export class DescribeGraphTool implements UseCase<{ name: string; runId?: string }, GraphToolDescription> {
  constructor(
    @inject(GraphTokens.GraphHost) private readonly catalog: GraphToolCatalog,
    @inject(GraphTokens.GraphRunStore) private readonly store: GraphRunStore,
  ) {}

  async execute(input: { name: string; runId?: string }, ctx?: CallContext): Promise<GraphToolDescription> {
    const runs = await this.store.list({ tool: input.name });
    const served = this.catalog.toolDefinition(input.name);
    // A draft's definition is drawn for the identity that ran it (another's run is as unknown as in GetGraphRun).
    const draftOf = (r: GraphRunRecord) => (r.tool === input.name && r.draft && reachOf(ctx).owns(r.actor?.name) ? r : undefined);
    const asRun = input.runId !== undefined ? draftOf(await this.store.get(input.runId)) : undefined;
    let tool: GraphTool | undefined = asRun ? undefined : served?.tool;
    let file = asRun ? asRun.file : served?.file;
    let draftRun = asRun;
    if (!asRun && !tool && runs.length) {
      const latest = await this.store.get(runs[0].runId);
      file = latest.file;
      draftRun = draftOf(latest);
      if (file && !draftRun) tool = (await this.catalog.readGraphFile(file)).tools.find((t) => t.name === input.name);
    }
    // A draft whose definition was too large to keep is listed undrawn (its record says why).
    if (draftRun) tool = draftRun.definition ? toolOfDefinition(draftRun.definition) : undefined;
    if (!tool && !draftRun) throw new NotFoundError('graph tool', input.name);
    const drawing = tool ? drawGraphTool(tool) : { nodes: [], edges: [] };
    return {
      name: input.name,
      description: tool?.description ?? '',
      file: file ?? '(in-memory graph)',
      loaded: served !== undefined && !draftRun,
      nodeCount: tool?.nodes.length ?? 0,
      runs: runs.length,
      ...(served && !draftRun ? { inputSchema: served.tool.inputSchema } : {}),
      ...drawing,
      recentRuns: runs,
      ...(draftRun ? { draftRun: draftRun.runId } : {}),
    };
  }
}
