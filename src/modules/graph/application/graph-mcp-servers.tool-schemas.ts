import { toolSchemas } from '../../../kernel/tools/tool-schema';

/**
 * The schemas of the authoring tools that discover the MCP servers a graph's `mcp` nodes can call (served with
 * `--graph-authoring`): graph_mcp_server_list and graph_mcp_tool_get.
 */

const serverInfo = {
  type: 'object',
  description: "The server's own `serverInfo` from its handshake.",
  properties: { name: { type: 'string' }, version: { type: 'string' }, title: { type: 'string' } },
  required: ['name', 'version'],
} as const;

export const graphMcpServerListSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    properties: {
      server: { type: 'string', minLength: 1, description: 'One server by name; default every server.' },
      file: { type: 'string', minLength: 1, description: 'Only the servers this loaded graph file can call (as graph_server names it).' },
    },
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      servers: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            name: { type: 'string', description: 'What an mcp node names in `server`.' },
            transport: { type: 'string', enum: ['stdio', 'http', 'sse'] },
            declaredIn: {
              type: 'array',
              items: { type: 'string' },
              description: "The graph files declaring it, and '--mcp-config' when it comes from there.",
            },
            reachable: { type: 'boolean', description: 'False when it could not be started or did not list its tools: `error` says why.' },
            serverInfo,
            instructions: { type: 'string' },
            tools: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  name: { type: 'string' },
                  title: { type: 'string' },
                  description: { type: 'string' },
                  inputSchema: { type: 'object', description: 'What its arguments (an mcp node\'s `args`) must match.' },
                },
                required: ['name', 'inputSchema'],
              },
            },
            error: { type: 'string', description: 'Why it is not reachable (one line, with the end of its stderr).' },
          },
          required: ['name', 'transport', 'declaredIn', 'reachable'],
        },
      },
    },
    required: ['servers'],
  },
});

export const graphMcpToolGetSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    properties: {
      server: { type: 'string', minLength: 1, description: 'An MCP server graph_mcp_server_list names.' },
      tool: { type: 'string', minLength: 1, description: 'One of its tools.' },
    },
    required: ['server', 'tool'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      server: { type: 'string' },
      name: { type: 'string' },
      title: { type: 'string' },
      description: { type: 'string' },
      inputSchema: { type: 'object' },
      outputSchema: { type: 'object', description: "Its structuredContent's schema, when it declares one (an mcp node's output)." },
      annotations: { type: 'object' },
    },
    required: ['server', 'name', 'inputSchema'],
  },
});
