import { inject, injectable } from 'tsyringe';
import { NotFoundError } from '../../../../kernel/errors';
import type { UseCase } from '../../../../kernel/use-case';
import { drawGraphTool, type GraphDrawing, type GraphRunSummary } from '../../domain/graph-run-record';
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
}

/**
 * A graph tool drawn from its file (node types, switch conditions on the edges) with its recorded runs. A tool this
 * process does not serve is drawn from the file its latest recorded run names.
 * @throws NotFoundError when the tool is neither served nor named by a recorded run.
 */
@injectable()
export class DescribeGraphTool implements UseCase<{ name: string }, GraphToolDescription> {
  constructor(
    @inject(GraphTokens.GraphHost) private readonly catalog: GraphToolCatalog,
    @inject(GraphTokens.GraphRunStore) private readonly store: GraphRunStore,
  ) {}

  async execute(input: { name: string }): Promise<GraphToolDescription> {
    const runs = await this.store.list({ tool: input.name });
    const served = this.catalog.toolDefinition(input.name);
    let tool: GraphTool | undefined = served?.tool;
    let file = served?.file;
    if (!tool && runs.length) {
      const latest = await this.store.get(runs[0].runId);
      file = latest.file;
      if (file) tool = (await this.catalog.readGraphFile(file)).tools.find((t) => t.name === input.name);
    }
    if (!tool) throw new NotFoundError('graph tool', input.name);
    const drawing = drawGraphTool(tool);
    return {
      name: tool.name,
      description: tool.description,
      file: file ?? '(in-memory graph)',
      loaded: served !== undefined,
      nodeCount: tool.nodes.length,
      runs: runs.length,
      ...(served ? { inputSchema: tool.inputSchema } : {}),
      ...drawing,
      recentRuns: runs,
    };
  }
}
