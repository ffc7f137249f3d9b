import { GraphTokens } from './application/graph.tokens';
import { defineTool, type ToolDefinition } from '../../kernel/tools/tool-definition';
import {
  graphServerSchemas,
  graphTestJsonataSchemas,
  graphTestJsonLogicSchemas,
  graphToolGetSchemas,
  graphToolListSchemas,
} from './application/graph-authoring.tool-schemas';
import { graphMcpServerListSchemas, graphMcpToolGetSchemas } from './application/graph-mcp-servers.tool-schemas';

const readOnly = (title: string) => ({ title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }) as const;

/**
 * The graph module's authoring tools (mcpgraph's mcpgraphtoolkit, read-only part): served only with
 * `--graph-authoring` (src/server/builtin-tools.ts), documented in docs/graphs.md.
 */
export const graphAuthoringTools: ToolDefinition[] = [
  defineTool({
    name: 'graph_server',
    title: 'Graph file server metadata',
    description:
      "The server metadata of each loaded graph file (its `server` block: name, version, title, description, instructions), with the format it was read as, its execution limits, the MCP servers its mcp nodes can call and its tools. `file` picks one file.",
    ...graphServerSchemas,
    annotations: readOnly('Graph file server metadata'),
    useCase: GraphTokens.GetGraphServer,
    module: 'graph',
  }),
  defineTool({
    name: 'graph_tool_list',
    title: 'List graph tools',
    description: 'The graph tools this server serves: name, description, the file declaring each and its graph.',
    ...graphToolListSchemas,
    annotations: readOnly('List graph tools'),
    useCase: GraphTokens.ListServedGraphTools,
    module: 'graph',
  }),
  defineTool({
    name: 'graph_tool_get',
    title: 'Get a graph tool',
    description:
      "A served graph tool's definition as served: description, input and output schema as clients see them, and its nodes in mcpgraph's newest format ({expr} arguments, transform.expr, switch conditions).",
    ...graphToolGetSchemas,
    annotations: readOnly('Get a graph tool'),
    useCase: GraphTokens.GetGraphToolDefinition,
    module: 'graph',
  }),
  defineTool({
    name: 'graph_mcp_server_list',
    title: 'List MCP servers for graphs',
    description:
      "The MCP servers graph mcp nodes can call (each graph file's own and --mcp-config's), each started or reused and asked for its tools: name, description, input schema. One that cannot be reached is listed with reachable: false and its error; the others still are. `server` or `file` narrows the list.",
    ...graphMcpServerListSchemas,
    annotations: { title: 'List MCP servers for graphs', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    useCase: GraphTokens.ListMcpServers,
    module: 'graph',
  }),
  defineTool({
    name: 'graph_mcp_tool_get',
    title: 'Get an MCP server tool',
    description: "One tool of an MCP server graphs can call, as that server lists it: description, input schema (what an mcp node's args must match), output schema and annotations.",
    ...graphMcpToolGetSchemas,
    annotations: { title: 'Get an MCP server tool', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    useCase: GraphTokens.GetMcpServerTool,
    module: 'graph',
  }),
  defineTool({
    name: 'graph_test_jsonata',
    title: 'Test a JSONata expression',
    description:
      'Evaluate a JSONata expression as a graph node would (same engine, limits and linear-time regexes) against `context`, with $previousNode(), $executionCount(), $nodeExecution() and $nodeExecutions() answering from `history`. Answers {ok, result} or {ok: false, error} with the error\'s kind (syntax or runtime), code and position (character offset, line and column within the expression).',
    ...graphTestJsonataSchemas,
    annotations: readOnly('Test a JSONata expression'),
    useCase: GraphTokens.TestJsonata,
    module: 'graph',
  }),
  defineTool({
    name: 'graph_test_json_logic',
    title: 'Test a JSON Logic rule',
    description:
      "Evaluate a switch condition's JSON Logic rule as a switch node would: each `var` operand is JSONata over `context` (history functions over `history`), the result is the rule's truthiness (whether the branch is taken). Errors name where in the rule, the var's JSONata and the position within it.",
    ...graphTestJsonLogicSchemas,
    annotations: readOnly('Test a JSON Logic rule'),
    useCase: GraphTokens.TestJsonLogic,
    module: 'graph',
  }),
];
