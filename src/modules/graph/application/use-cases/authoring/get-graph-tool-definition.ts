import { inject, injectable } from 'tsyringe';
import { NotFoundError } from '../../../../../kernel/errors';
import type { UseCase } from '../../../../../kernel/use-case';
import type { ToolInput, ToolOutput } from '../../../../../kernel/tools/tool-schema';
import { graphToolDefinition } from '../../../domain/graph-tool-definition';
import { GraphTokens } from '../../graph.tokens';
import type { graphToolGetSchemas } from '../../graph-authoring.tool-schemas';
import type { GraphToolCatalog } from '../../ports/graph-tool-catalog';
import type { GraphFileSync } from '../../ports/graph-file-editor';

type GraphToolGetInput = ToolInput<typeof graphToolGetSchemas>;
type GraphToolGetOutput = ToolOutput<typeof graphToolGetSchemas>;

/**
 * graph_tool_get: a served graph tool's definition as served (mcpgraph's getGraphTool): schemas as the client sees
 * them, nodes in the newest format, and its file's revision — as the file is on disk at the call (see GetGraphServer).
 * @throws NotFoundError for a tool this server does not serve.
 */
@injectable()
export class GetGraphToolDefinition implements UseCase<GraphToolGetInput, GraphToolGetOutput> {
  constructor(
    @inject(GraphTokens.GraphHost) private readonly catalog: GraphToolCatalog,
    @inject(GraphTokens.GraphFileSync) private readonly sync: GraphFileSync,
  ) {}

  async execute(input: GraphToolGetInput): Promise<GraphToolGetOutput> {
    await this.sync.refresh();
    const served = this.catalog.toolDefinition(input.name);
    if (!served) throw new NotFoundError('graph tool', input.name);
    const { name, description, inputSchema, outputSchema, nodes } = graphToolDefinition(served.tool);
    const revision = this.catalog.graphs().find((g) => g.config.file === served.file)?.config.revision ?? '';
    return { name, description, file: served.file ?? '(in-memory graph)', revision, inputSchema, outputSchema, nodes };
  }
}
