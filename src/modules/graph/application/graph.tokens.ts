/** The graph module's injection tokens (registered by graph.module.ts; use cases inject them). */
export const GraphTokens = {
  McpClientPool: Symbol.for('workgraph.McpClientPool'),
  GraphHost: Symbol.for('workgraph.GraphHost'),
  InspectGraphExecution: Symbol.for('workgraph.InspectGraphExecution'),
} as const;
