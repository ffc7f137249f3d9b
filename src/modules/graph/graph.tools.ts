import { GraphTokens } from './application/graph.tokens';
import { defineTool, type ToolDefinition } from '../../kernel/tools/tool-definition';
import { graphInspectSchemas } from './application/graph.tool-schemas';

/** Built-in tools of the graph module (the graph tools themselves come from graph files at run time). */
export const graphTools: ToolDefinition[] = [
  defineTool({
    name: 'graph_inspect',
    title: 'Inspect a graph run',
    description:
      'Inspect a recent graph tool run (its id is in the result\'s _meta["workgraph/executionId"]): status, result or error, and a page of node executions. With executionIndex: that execution and the expression context it saw.',
    ...graphInspectSchemas,
    annotations: { title: 'Inspect a graph run', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    useCase: GraphTokens.InspectGraphExecution,
    module: 'graph',
    view: 'graph-run',
  }),
];

