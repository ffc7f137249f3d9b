import { GraphTokens } from './application/graph.tokens';
import { defineTool, type ToolDefinition } from '../../kernel/tools/tool-definition';
import { graphInspectSchemas } from './application/graph.tool-schemas';

/** Built-in tools of the graph module (the graph tools themselves come from graph files at run time). */
export const graphTools: ToolDefinition[] = [
  defineTool({
    name: 'graph_inspect',
    title: 'Inspect a graph run',
    description:
      'Inspect a recent run of a graph tool (every graph tool result carries its id in _meta["workgraph/executionId"]). ' +
      'Without executionIndex: the run status, result or error, and a page of its node execution history. With ' +
      'executionIndex: that node execution and the expression context it saw (time travel).',
    ...graphInspectSchemas,
    annotations: { title: 'Inspect a graph run', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    useCase: GraphTokens.InspectGraphExecution,
    module: 'graph',
  }),
];

