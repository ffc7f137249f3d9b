/**
 * What the dashboard's HTTP API asks of the application: one method per endpoint, each answered by the modules' use
 * cases (see container-backend.ts). Kept as an interface so the HTTP adapter knows nothing of the container.
 */
export interface KnowledgeNodeFilter {
  role?: string;
  tag?: string;
  text?: string;
  cursor?: string;
  limit?: number;
}

/** How a debug run is started from the dashboard (POST /api/graphs/:tool/debug). */
export interface DebugStart {
  args: unknown;
  breakpoints?: string[];
  startPaused?: boolean;
}

/** What a debug request does to its run. */
export type DebugControl = { action: 'pause' | 'resume' | 'step' | 'stop' } | { action: 'breakpoints'; nodeIds: string[] };

export interface DashboardBackend {
  overview(): Promise<unknown>;
  taskGraph(project: string): Promise<unknown>;
  taskDetails(project: string, nodeId: string): Promise<unknown>;
  resetTask(project: string, nodeId: string): Promise<unknown>;
  sessions(): Promise<unknown>;
  /** One page of a session's timeline: the events after `cursor` (the previous page's `nextCursor`); the first page without. */
  session(id: string, cursor?: string): Promise<unknown>;
  graphTools(): Promise<unknown>;
  /** A graph tool drawn; with `runId`, as that run ran it (a draft's run keeps its own definition). */
  graphTool(name: string, runId?: string): Promise<unknown>;
  graphRun(runId: string): Promise<unknown>;
  graphRunExecution(runId: string, index: number): Promise<unknown>;
  runGraphTool(name: string, args: unknown): Promise<unknown>;
  /** The debugger (docs/dashboard.md "Debugger"): debug runs held by this process. */
  debugGraphTool(name: string, start: DebugStart): Promise<unknown>;
  debugRun(runId: string): Promise<unknown>;
  controlDebugRun(runId: string, control: DebugControl): Promise<unknown>;
  knowledgeProjects(): Promise<unknown>;
  knowledgeNodes(project: string, filter: KnowledgeNodeFilter): Promise<unknown>;
  knowledgeNode(project: string, id: string): Promise<unknown>;
  knowledgeDeleted(project: string): Promise<unknown>;
  knowledgeBackups(project: string): Promise<unknown>;
  restoreKnowledge(project: string, nodeIds: string[]): Promise<unknown>;
}
