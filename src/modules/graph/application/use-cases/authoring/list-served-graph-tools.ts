import { inject, injectable } from 'tsyringe';
import type { UseCase } from '../../../../../kernel/use-case';
import type { ToolInput, ToolOutput } from '../../../../../kernel/tools/tool-schema';
import { GraphTokens } from '../../graph.tokens';
import type { graphToolListSchemas } from '../../graph-authoring.tool-schemas';
import type { GraphToolCatalog } from '../../ports/graph-tool-catalog';

type GraphToolListInput = ToolInput<typeof graphToolListSchemas>;
type GraphToolListOutput = ToolOutput<typeof graphToolListSchemas>;

/** graph_tool_list: the graph tools this server serves, by name (mcpgraph's listGraphTools), with the file of each. */
@injectable()
export class ListServedGraphTools implements UseCase<GraphToolListInput, GraphToolListOutput> {
  constructor(@inject(GraphTokens.GraphHost) private readonly catalog: GraphToolCatalog) {}

  async execute(): Promise<GraphToolListOutput> {
    const tools = this.catalog
      .listTools()
      .map((t) => ({ name: t.name, description: t.description, file: t.file ?? '(in-memory graph)', graph: t.graph }))
      .sort((a, b) => a.name.localeCompare(b.name));
    return { tools };
  }
}
