import type { JSONSchema } from 'json-schema-to-ts';
import { toolSchemas } from '../../../kernel/tools/tool-schema';

/**
 * The schemas of the authoring tools that change graph files and run drafts (served with `--graph-authoring`):
 * graph_tool_add, graph_tool_update, graph_tool_delete and graph_tool_run.
 */

/** A tool definition as mcpgraph's toolkit takes it (and graph_tool_get answers it); the file's checks do the rest. */
const toolDefinition = {
  type: 'object',
  description:
    "A graph tool as graph_tool_get answers one: name, description, inputSchema, outputSchema, nodes (mcp args: {expr} objects are JSONata). Checked as `workgraph validate` checks a file.",
  properties: {
    name: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' },
    description: { type: 'string' },
    inputSchema: { type: 'object' },
    outputSchema: { type: 'object' },
    nodes: {
      type: 'array',
      minItems: 2,
      items: {
        type: 'object',
        properties: { id: { type: 'string', minLength: 1 }, type: { type: 'string', enum: ['entry', 'mcp', 'transform', 'switch', 'exit'] } },
        required: ['id', 'type'],
      },
    },
  },
  required: ['name', 'description', 'inputSchema', 'outputSchema', 'nodes'],
} as const;

const revision = {
  type: 'string',
  minLength: 1,
  description: "The file's revision as graph_server or graph_tool_get answered it (or a write's answer): a file changed since is a conflict.",
} as const;

const changedOutput = {
  type: 'object',
  properties: {
    file: { type: 'string' },
    revision: { type: 'string', description: 'The new revision (for the next change).' },
    tools: { type: 'array', items: { type: 'string' }, description: 'The tools the file declares now, served at once.' },
    warnings: { type: 'array', items: { type: 'string' }, description: 'file:line:col: warning, as workgraph validate prints them.' },
  },
  required: ['file', 'revision', 'tools', 'warnings'],
} as const;

/**
 * The schemas of a write to one graph file — graph_tool_add, _update and _delete are one shape: what the write names
 * (the file, or the served tool whose file it is), the revision it was based on, the tool when it brings one, and the
 * file as it is after ({@link changedOutput}).
 */
function fileWriteSchemas<const P extends { readonly [key: string]: JSONSchema }, const R extends readonly (keyof P & string)[]>(properties: P, required: R) {
  return toolSchemas({ inputSchema: { type: 'object', properties, required, additionalProperties: false }, outputSchema: changedOutput });
}

export const graphToolAddSchemas = fileWriteSchemas(
  { file: { type: 'string', minLength: 1, description: 'A graph file --graphs names (a path, or its name as graph_server gives it).' }, revision, tool: toolDefinition },
  ['file', 'revision', 'tool'],
);

export const graphToolUpdateSchemas = fileWriteSchemas(
  { name: { type: 'string', minLength: 1, description: 'The served graph tool to replace (its file is the one declaring it).' }, revision, tool: toolDefinition },
  ['name', 'revision', 'tool'],
);

export const graphToolDeleteSchemas = fileWriteSchemas({ name: { type: 'string', minLength: 1, description: 'The served graph tool to remove from its file.' }, revision }, ['name', 'revision']);

export const graphToolRunSchemas = toolSchemas({
  inputSchema: {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 1, description: 'A served graph tool to run (or give `tool`).' },
      tool: { ...toolDefinition, description: 'A tool definition to run without saving it (or give `name`).' },
      file: { type: 'string', minLength: 1, description: "With `tool`: the graph file it runs in (its MCP servers and limits). Default: alone, with --mcp-config's servers." },
      arguments: { type: 'object', description: 'The tool arguments (checked against its inputSchema).' },
      historyLimit: { type: 'integer', minimum: 0, maximum: 10000, default: 100, description: 'Node executions answered (the last ones).' },
    },
    required: ['arguments'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      executionId: { type: 'string', description: 'The run: graph_inspect shows it, the dashboard lists it.' },
      status: { type: 'string', enum: ['completed', 'failed', 'stopped'] },
      result: { description: 'The tool result, when completed.' },
      error: {
        type: 'object',
        properties: { code: { type: 'string' }, message: { type: 'string' }, nodeId: { type: 'string' } },
        required: ['code', 'message'],
      },
      nodeExecutions: { type: 'integer' },
      durationMs: { type: 'number' },
      history: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            executionIndex: { type: 'integer' },
            nodeId: { type: 'string' },
            nodeType: { type: 'string' },
            durationMs: { type: 'number' },
            output: {},
            error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] },
          },
          required: ['executionIndex', 'nodeId', 'nodeType', 'durationMs'],
        },
      },
      truncated: { type: 'boolean', description: 'True when earlier node executions were left out (historyLimit).' },
    },
    required: ['executionId', 'status', 'nodeExecutions', 'durationMs', 'history', 'truncated'],
  },
});
