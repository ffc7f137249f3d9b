/** The workflow module's injection tokens (registered by workflow.module.ts; use cases inject them). */
export const WorkflowTokens = {
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
  /** The output-contract JSON Schemas of spec/contracts/ (ContractSchemaSource). */
  ContractSchemas: Symbol.for('workgraph.ContractSchemas'),
  StepOutputChecker: Symbol.for('workgraph.StepOutputChecker'),
  /** Checks of contract artifacts beyond their schema that other modules register (ContractRule, any number). */
  ContractRules: Symbol.for('workgraph.ContractRules'),
  /** Resolves a workflow's `references` and checks each exists (ReferenceChecker). */
  ReferenceChecker: Symbol.for('workgraph.ReferenceChecker'),
  /** The catalogs of workspaces' own workflows (WorkspaceWorkflowCatalogs) and the service choosing one per call. */
  WorkspaceCatalogs: Symbol.for('workgraph.WorkspaceCatalogs'),
  WorkspaceWorkflows: Symbol.for('workgraph.WorkspaceWorkflows'),
  // durable sessions
  SessionStore: Symbol.for('workgraph.SessionStore'),
  SessionTokens: Symbol.for('workgraph.SessionTokens'),
  SessionEngine: Symbol.for('workgraph.SessionEngine'),
  StartSession: Symbol.for('workgraph.StartSession'),
  ContinueSession: Symbol.for('workgraph.ContinueSession'),
  CheckpointSession: Symbol.for('workgraph.CheckpointSession'),
  ResumeSessions: Symbol.for('workgraph.ResumeSessions'),
  ListSessions: Symbol.for('workgraph.ListSessions'),
  GetSessionTimeline: Symbol.for('workgraph.GetSessionTimeline'),
  PruneSessions: Symbol.for('workgraph.PruneSessions'),
  /** The command runner verification steps run through (the tasks module's, wired by workflow.module.ts). */
  VerificationRunner: Symbol.for('workgraph.VerificationRunner'),
  VerificationService: Symbol.for('workgraph.VerificationService'),
} as const;
