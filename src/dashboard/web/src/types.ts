/** Shapes of the dashboard API's answers (see docs/dashboard.md). */
export interface ProjectSummary {
  id: string;
  name: string;
  root: string;
  counts: Record<string, number>;
  total: number;
  updatedAt: string;
}
export interface RunSummary {
  runId: string;
  tool: string;
  status: 'completed' | 'failed' | 'stopped' | string;
  startedAt: string;
  durationMs: number;
  nodeExecutions: number;
  error?: string;
  /** Who ran it (absent on runs recorded before actors were kept). */
  actor?: { name: string; client?: string };
  /** A run of a definition not saved (graph_tool_run with `tool`). */
  draft?: true;
}
/** How far a session is, as the workflow module counts it (top-level steps; a loop is one). */
export interface SessionProgress {
  done: number;
  total: number;
  skipped: number;
}
export interface SessionSummary {
  id: string;
  workflowId: string;
  workflowName?: string;
  status: string;
  updatedAt: string;
  progress?: SessionProgress;
  currentStep?: string;
}
export interface KnowledgeProjectSummary {
  project: string;
  sizeBytes: number;
  modifiedAt: string;
  deletedSizeBytes: number;
  backups: number;
}
export interface OverviewData {
  projects: ProjectSummary[];
  sessions: { available: boolean; active: SessionSummary[] };
  graphRuns: RunSummary[];
  knowledge: KnowledgeProjectSummary[];
}
export interface TaskErrorLog {
  attempt: number;
  time: string;
  exit_code: number | null;
  signal: string | null;
  duration_ms: number;
  timed_out: boolean;
  stdout_tail: string;
  stderr_tail: string;
}
export interface TaskNode {
  id: string;
  title: string;
  description?: string;
  depends_on: string[];
  validation_command?: string;
  max_attempts: number;
  timeout_ms: number;
  status: string;
  current_attempt: number;
  error_logs: TaskErrorLog[];
  updated_at: string;
  /** high, medium or low; absent means medium. */
  priority?: string;
  tags?: string[];
  metadata?: Record<string, string | number | boolean>;
  /** Who started the task and holds it (IN_PROGRESS, VALIDATING, RETRYING). */
  claim?: TaskClaim;
}
/** Who acts on a task: the caller's identity, the agent name it gave and the server's host. */
export interface Claimant {
  identity: string | null;
  agent: string | null;
  host: string;
  /** The caller's MCP client name (`clientInfo.name`), when known (history entries; claims do not keep it). */
  client?: string;
}
export interface TaskClaim extends Claimant {
  since: string;
  expires_at: string;
}
/** One change of the plan (the project's history, newest last). */
export interface PlanChange {
  revision: number;
  time: string;
  actor: Claimant;
  action: string;
  reason: string;
  nodes: string[];
}
export interface TaskGraphData {
  project_id: string;
  project_name: string;
  project_root: string;
  nodes: TaskNode[];
  counts: Record<string, number>;
  revision: number;
  /** The plan's recent changes, oldest first. */
  history?: PlanChange[];
}
export interface TaskTransition {
  node: string;
  from: string;
  to: string;
  time: string;
  attempt: number;
  /** Who made the change: the identity's name and its MCP client's name (absent in lines logged before actors were kept). */
  actor?: { name: string; client?: string };
}
