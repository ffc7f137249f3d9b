import { toolSchemas } from '../../../kernel/tools/tool-schema';

/**
 * The schemas of the graph module's built-in tool, written once: graph.tools.ts declares the tool with them and its
 * use case takes its types from them. (Graph tools themselves get their schemas from graph files at run time.)
 */

const record = {
  type: 'object',
  description: 'One node execution.',
  properties: {
    executionIndex: { type: 'integer' },
    nodeId: { type: 'string' },
    nodeType: { type: 'string' },
    startTime: { type: 'number' },
    endTime: { type: 'number' },
    duration: { type: 'number' },
    output: {},
    error: {},
  },
  required: ['executionIndex', 'nodeId', 'nodeType'],
} as const;

export const graphInspectSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    properties: {
      executionId: { type: 'string', minLength: 1, description: 'The run, from a graph tool result _meta.' },
      executionIndex: { type: 'integer', minimum: 0, description: 'A node execution of the run (0-based).' },
      offset: { type: 'integer', minimum: 0, description: 'History page start (default 0).' },
      limit: { type: 'integer', minimum: 1, maximum: 1000, description: 'History page size (default 100).' },
    },
    required: ['executionId'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      executionId: { type: 'string' },
      tool: { type: 'string' },
      status: { type: 'string' },
      currentNodeId: { type: ['string', 'null'] },
      executionCount: { type: 'integer' },
      startTime: { type: 'number' },
      endTime: { type: 'number' },
      result: {},
      error: {},
      history: { type: 'array', items: record },
      historyOffset: { type: 'integer' },
      historyTotal: { type: 'integer' },
      actor: {
        type: 'object',
        description: "Who ran it: the identity's name and the agent's client name",
        required: ['name'],
        properties: { name: { type: 'string' }, client: { type: 'string' } },
      },
      executionIndex: { type: 'integer' },
      record,
      context: { type: 'object' },
    },
    required: ['executionId'],
  },
});
