import { inject, injectable } from 'tsyringe';
import { NotFoundError } from '../../../../../kernel/errors';
import type { UseCase } from '../../../../../kernel/use-case';
import type { ToolInput, ToolOutput } from '../../../../../kernel/tools/tool-schema';
import { GraphTokens } from '../../graph.tokens';
import type { graphServerSchemas } from '../../graph-authoring.tool-schemas';
import type { GraphToolCatalog } from '../../ports/graph-tool-catalog';
import type { GraphFileSync } from '../../ports/graph-file-editor';

type GraphServerInput = ToolInput<typeof graphServerSchemas>;
type GraphServerOutput = ToolOutput<typeof graphServerSchemas>;

/**
 * graph_server: each loaded graph file's server metadata (mcpgraph's getGraphServer), with its format, limits, the MCP
 * servers its nodes can call (its own and --mcp-config's) and its tools — as the files are on disk at the call (what
 * another process wrote is reloaded first), so a write on the revision answered is not refused for a stale read.
 * @throws NotFoundError for a `file` that is not loaded.
 */
@injectable()
export class GetGraphServer implements UseCase<GraphServerInput, GraphServerOutput> {
  constructor(
    @inject(GraphTokens.GraphHost) private readonly catalog: GraphToolCatalog,
    @inject(GraphTokens.GraphFileSync) private readonly sync: GraphFileSync,
  ) {}

  async execute(input: GraphServerInput): Promise<GraphServerOutput> {
    await this.sync.refresh();
    const graphs = this.catalog.graphs().map(({ config }) => ({
      file: config.file ?? '(in-memory graph)',
      revision: config.revision ?? '',
      format: config.format,
      server: { ...config.server },
      executionLimits: { ...config.executionLimits },
      mcpServers: Object.keys(config.mcpServers).sort(),
      tools: config.tools.map((t) => t.name),
    }));
    if (input.file === undefined) return { graphs };
    const wanted = graphs.filter((g) => g.file === input.file || (input.file && g.file.endsWith(`/${input.file}`)));
    if (wanted.length === 0) throw new NotFoundError('graph file', input.file);
    return { graphs: wanted };
  }
}
