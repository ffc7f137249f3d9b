import { toolSchemas } from '../../../kernel/tools/tool-schema';

/**
 * The schemas of the graph authoring tools (served with `--graph-authoring`), written once: graph-authoring.tools.ts
 * declares the tools with them and their use cases take their types from them.
 */

const serverInfo = {
  type: 'object',
  description: "The graph file's `server` block: the MCP server mcpgraph would expose for it.",
  properties: {
    name: { type: 'string' },
    version: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    instructions: { type: 'string' },
  },
  required: ['name', 'version'],
} as const;

export const graphServerSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    properties: {
      file: { type: 'string', minLength: 1, description: 'One loaded graph file (as graph_tool_list names it); default every loaded file.' },
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      graphs: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            file: { type: 'string' },
            revision: { type: 'string', description: 'The revision of the file as loaded: what graph_tool_add, _update and _delete are given.' },
            format: { type: 'string', description: 'The mcpgraph format the file was read as: older, nested or newest.' },
            server: serverInfo,
            executionLimits: {
              type: 'object',
              properties: { maxNodeExecutions: { type: 'integer' }, maxExecutionTimeMs: { type: 'integer' } },
              required: ['maxNodeExecutions', 'maxExecutionTimeMs'],
            },
            mcpServers: { type: 'array', items: { type: 'string' }, description: 'Names of the MCP servers the graph can call (its own and --mcp-config).' },
            tools: { type: 'array', items: { type: 'string' } },
          },
          required: ['file', 'revision', 'format', 'server', 'executionLimits', 'mcpServers', 'tools'],
        },
      },
    },
    required: ['graphs'],
  },
});

export const graphToolListSchemas = toolSchemas({
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  outputSchema: {
    type: 'object',
    properties: {
      tools: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            description: { type: 'string' },
            file: { type: 'string' },
            graph: { type: 'string', description: "The graph's server title (else its name)." },
          },
          required: ['name', 'description', 'file', 'graph'],
        },
      },
    },
    required: ['tools'],
  },
});

export const graphToolGetSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    properties: { name: { type: 'string', minLength: 1, description: 'A served graph tool.' } },
    required: ['name'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string' },
      description: { type: 'string', description: 'As served.' },
      file: { type: 'string' },
      revision: { type: 'string', description: 'The revision of its file as loaded (for graph_tool_update and graph_tool_delete).' },
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object', description: 'As served: a non-object output schema is wrapped as {result}.' },
      nodes: {
        type: 'array',
        description: "The nodes in mcpgraph's newest format ({expr} arguments, transform.expr, switch conditions [{rule?, target}]).",
        items: { type: 'object' },
      },
    },
    required: ['name', 'description', 'file', 'revision', 'inputSchema', 'outputSchema', 'nodes'],
  },
});

const historyInput = {
  type: 'array',
  description:
    'Node executions before it, oldest first: what $previousNode(), $executionCount(), $nodeExecution(), $nodeExecutions() answer from. Without `context`, the context is built from it.',
  maxItems: 10000,
  items: {
    type: 'object',
    properties: {
      nodeId: { type: 'string', minLength: 1 },
      nodeType: { type: 'string', enum: ['entry', 'mcp', 'transform', 'switch', 'exit'], description: 'Default transform.' },
      output: {},
    },
    required: ['nodeId'],
    additionalProperties: false,
  },
} as const;

const contextInput = {
  type: 'object',
  description: 'What the expression sees as `$`: in a graph, each node id → its latest output (the entry node\'s output is the tool arguments). Default: built from `history`, else {}.',
} as const;

const testOutput = {
  type: 'object',
  properties: {
    ok: { type: 'boolean', description: 'True when it evaluated; then `result` holds the value (absent for JSONata\'s undefined).' },
    result: {},
    error: {
      type: 'object',
      properties: {
        kind: { type: 'string', enum: ['syntax', 'runtime'] },
        message: { type: 'string' },
        code: { type: 'string', description: "JSONata's error code (S0201, T1006, D1012 …), when it gave one." },
        position: { type: 'integer', description: 'Character offset within the expression JSONata reports (1-based: the character the error was found at).' },
        line: { type: 'integer', description: '1-based line within the expression.' },
        column: { type: 'integer', description: '1-based column within that line.' },
        path: { type: 'string', description: 'JSON Logic: where in the rule (rule.and[0] …).' },
        expression: { type: 'string', description: 'JSON Logic: the JSONata of the var that failed.' },
      },
      required: ['kind', 'message'],
    },
  },
  required: ['ok'],
} as const;

export const graphTestJsonataSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    properties: {
      expression: { type: 'string', minLength: 1, maxLength: 100000, description: 'A JSONata expression, as a transform node or an {expr} argument holds it.' },
      context: contextInput,
      history: historyInput,
    },
    required: ['expression'],
    additionalProperties: false,
  },
  outputSchema: testOutput,
});

export const graphTestJsonLogicSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    properties: {
      rule: { description: "A switch condition's JSON Logic rule; each `var` operand is JSONata over the context, as in a graph." },
      context: contextInput,
      history: historyInput,
    },
    required: ['rule'],
    additionalProperties: false,
  },
  outputSchema: testOutput,
});
