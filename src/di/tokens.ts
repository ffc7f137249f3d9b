/**
 * Injection tokens. Each module adds its own section; a token is declared once and imported where it is injected.
 */
export const Tokens = {
  // foundation
  Config: Symbol.for('workgraph.Config'),
  Logger: Symbol.for('workgraph.Logger'),
  Clock: Symbol.for('workgraph.Clock'),
  Timers: Symbol.for('workgraph.Timers'),
  PathPolicy: Symbol.for('workgraph.PathPolicy'),
  ToolRegistry: Symbol.for('workgraph.ToolRegistry'),
  SchemaRegistry: Symbol.for('workgraph.SchemaRegistry'),
  ProjectFiles: Symbol.for('workgraph.ProjectFiles'),
  Lifecycle: Symbol.for('workgraph.Lifecycle'),

  // workflow module
  WorkflowStorage: Symbol.for('workgraph.WorkflowStorage'),
  ConditionEvaluator: Symbol.for('workgraph.ConditionEvaluator'),
  ValidationEngine: Symbol.for('workgraph.ValidationEngine'),
  ListWorkflows: Symbol.for('workgraph.ListWorkflows'),
  GetWorkflow: Symbol.for('workgraph.GetWorkflow'),
  GetNextStep: Symbol.for('workgraph.GetNextStep'),
  ValidateStepOutput: Symbol.for('workgraph.ValidateStepOutput'),
  ValidateWorkflowJson: Symbol.for('workgraph.ValidateWorkflowJson'),
  GetWorkflowSchema: Symbol.for('workgraph.GetWorkflowSchema'),
  /** The parsed spec/workflow.schema.json (loaded lazily from the package root). */
  WorkflowSchema: Symbol.for('workgraph.WorkflowSchema'),
  WorkflowDocumentChecker: Symbol.for('workgraph.WorkflowDocumentChecker'),

  // knowledge module
  KnowledgeStore: Symbol.for('workgraph.KnowledgeStore'),
  KnowledgeIdGenerator: Symbol.for('workgraph.KnowledgeIdGenerator'),
  AddKnowledgeNodes: Symbol.for('workgraph.AddKnowledgeNodes'),
  ListKnowledgeNodes: Symbol.for('workgraph.ListKnowledgeNodes'),
  GetKnowledgeNode: Symbol.for('workgraph.GetKnowledgeNode'),
  DeleteKnowledgeNodes: Symbol.for('workgraph.DeleteKnowledgeNodes'),
  RestoreKnowledgeNodes: Symbol.for('workgraph.RestoreKnowledgeNodes'),

  // tasks module
  TaskGraphStore: Symbol.for('workgraph.TaskGraphStore'),
  CommandRunner: Symbol.for('workgraph.CommandRunner'),
  ValidationRunRegistry: Symbol.for('workgraph.ValidationRunRegistry'),
  ValidationRunService: Symbol.for('workgraph.ValidationRunService'),
  HostInfo: Symbol.for('workgraph.HostInfo'),
  ScaffoldFileWriter: Symbol.for('workgraph.ScaffoldFileWriter'),
  InitProjectGraph: Symbol.for('workgraph.InitProjectGraph'),
  GetReadyTasks: Symbol.for('workgraph.GetReadyTasks'),
  GetProjectGraph: Symbol.for('workgraph.GetProjectGraph'),
  StartTask: Symbol.for('workgraph.StartTask'),
  ValidateTaskLoop: Symbol.for('workgraph.ValidateTaskLoop'),
  ResetTaskNode: Symbol.for('workgraph.ResetTaskNode'),
  ScaffoldProjectDocs: Symbol.for('workgraph.ScaffoldProjectDocs'),

  // graph module: MCP clients of graph `mcp` nodes
  McpClientPool: Symbol.for('workgraph.McpClientPool'),

  // graph module: loaded graphs, runs and their debugger (GraphHost from src/infrastructure/graph)
  GraphHost: Symbol.for('workgraph.GraphHost'),
  InspectGraphExecution: Symbol.for('workgraph.InspectGraphExecution'),
} as const;
