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
import { graphToolAddSchemas, graphToolDeleteSchemas, graphToolRunSchemas, graphToolUpdateSchemas } from './application/graph-tool-edit.tool-schemas';

const writes = (title: string, destructiveHint: boolean) => ({ title, readOnlyHint: false, destructiveHint, idempotentHint: false, openWorldHint: false }) as const;

const readOnly = (title: string) => ({ title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }) as const;

/**
 * The graph module's authoring tools (mcpgraph's mcpgraphtoolkit, read-only part): served only with
 * `--graph-authoring` (src/server/builtin-tools.ts), documented in docs/writing-graphs.md, "Authoring tools".
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
  defineTool({
    name: 'graph_tool_run',
    title: 'Run a graph tool or a draft',
    description:
      "Run a served graph tool (`name`) or a tool definition not saved (`tool`, in `file`'s graph with its MCP servers and limits, else alone) with `arguments`: the same engine, limits and run record as any run. Answers the status, result or error and the last node executions; a failed run is an answer, a definition that would not load an invalid_graph error.",
    ...graphToolRunSchemas,
    annotations: { title: 'Run a graph tool or a draft', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
    useCase: GraphTokens.RunGraphToolDraft,
    module: 'graph',
  }),
  defineTool({
    name: 'graph_tool_add',
    title: 'Add a graph tool',
    description:
      "Add a tool to a graph file --graphs names (inside your roots), given the revision you read: checked as workgraph validate checks a file, written atomically with comments and the other tools kept, served at once. A file changed since is a conflict; a problem is refused with file:line:col.",
    ...graphToolAddSchemas,
    annotations: writes('Add a graph tool', false),
    useCase: GraphTokens.AddGraphTool,
    module: 'graph',
  }),
  defineTool({
    name: 'graph_tool_update',
    title: 'Update a graph tool',
    description:
      'Replace a served graph tool in its file (it may be renamed), given the revision you read: the same checks, atomic write and conflict rule as graph_tool_add; the served list changes at once.',
    ...graphToolUpdateSchemas,
    annotations: writes('Update a graph tool', true),
    useCase: GraphTokens.UpdateGraphTool,
    module: 'graph',
  }),
  defineTool({
    name: 'graph_tool_delete',
    title: 'Delete a graph tool',
    description: 'Remove a served graph tool from its file, given the revision you read: the same checks, atomic write and conflict rule as graph_tool_add; it is no longer served.',
    ...graphToolDeleteSchemas,
    annotations: writes('Delete a graph tool', true),
    useCase: GraphTokens.DeleteGraphTool,
    module: 'graph',
  }),
];
