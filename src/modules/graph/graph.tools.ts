import { GraphTokens } from './application/graph.tokens';
import type { ToolDefinition } from '../../kernel/tools/tool-definition';

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
};

/** Built-in tools of the graph module (the graph tools themselves come from graph files at run time). */
export const graphTools: ToolDefinition[] = [
  {
    name: 'graph_inspect',
    title: 'Inspect a graph run',
    description:
      'Inspect a recent graph tool run (its id is in the result\'s _meta["workgraph/executionId"]): status, result or error, and a page of node executions. With executionIndex: that execution and the expression context it saw.',
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
        executionIndex: { type: 'integer' },
        record,
        context: { type: 'object' },
      },
      required: ['executionId'],
    },
    annotations: { title: 'Inspect a graph run', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    useCase: GraphTokens.InspectGraphExecution,
    module: 'graph',
  },
];
