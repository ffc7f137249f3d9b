import { Tokens } from '../../../kernel/tokens';

/** The tasks module's injection tokens (registered by tasks.module.ts; use cases inject them). */
export const TasksTokens = {
  TaskGraphStore: Symbol.for('workgraph.TaskGraphStore'),
  /** The kernel's command runner token (the tasks module registers the runner under it). */
  CommandRunner: Tokens.CommandRunner,
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
  PlanChanges: Symbol.for('workgraph.PlanChanges'),
  AddTasks: Symbol.for('workgraph.AddTasks'),
  UpdateTask: Symbol.for('workgraph.UpdateTask'),
  RemoveTasks: Symbol.for('workgraph.RemoveTasks'),
  SplitTask: Symbol.for('workgraph.SplitTask'),
  ClaimNextTask: Symbol.for('workgraph.ClaimNextTask'),
  ReleaseTask: Symbol.for('workgraph.ReleaseTask'),
} as const;
