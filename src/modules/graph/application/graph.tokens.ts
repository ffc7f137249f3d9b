/** The graph module's injection tokens (registered by graph.module.ts; use cases inject them). */
export const GraphTokens = {
  McpClientPool: Symbol.for('workgraph.McpClientPool'),
  GraphHost: Symbol.for('workgraph.GraphHost'),
  InspectGraphExecution: Symbol.for('workgraph.InspectGraphExecution'),
  GraphRunStore: Symbol.for('workgraph.GraphRunStore'),
  ListGraphRuns: Symbol.for('workgraph.ListGraphRuns'),
  GetGraphRun: Symbol.for('workgraph.GetGraphRun'),
  GetGraphRunExecution: Symbol.for('workgraph.GetGraphRunExecution'),
  ListGraphTools: Symbol.for('workgraph.ListGraphTools'),
  DescribeGraphTool: Symbol.for('workgraph.DescribeGraphTool'),
  RunGraphTool: Symbol.for('workgraph.RunGraphTool'),
  // The authoring tools (--graph-authoring).
  GetGraphServer: Symbol.for('workgraph.GetGraphServer'),
  ListServedGraphTools: Symbol.for('workgraph.ListServedGraphTools'),
  GetGraphToolDefinition: Symbol.for('workgraph.GetGraphToolDefinition'),
  TestJsonata: Symbol.for('workgraph.TestJsonata'),
  TestJsonLogic: Symbol.for('workgraph.TestJsonLogic'),
  ListMcpServers: Symbol.for('workgraph.ListMcpServers'),
  GetMcpServerTool: Symbol.for('workgraph.GetMcpServerTool'),
} as const;
