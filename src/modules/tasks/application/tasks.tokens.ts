/** The tasks module's injection tokens (registered by tasks.module.ts; use cases inject them). */
export const TasksTokens = {
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
  ListTaskProjects: Symbol.for('workgraph.ListTaskProjects'),
  GetTaskDetails: Symbol.for('workgraph.GetTaskDetails'),
} as const;
