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

export interface DashboardBackend {
  overview(): Promise<unknown>;
  taskGraph(project: string): Promise<unknown>;
  taskDetails(project: string, nodeId: string): Promise<unknown>;
  resetTask(project: string, nodeId: string): Promise<unknown>;
  sessions(): Promise<unknown>;
  /** One page of a session's timeline: the events after `cursor` (the previous page's `nextCursor`); the first page without. */
  session(id: string, cursor?: string): Promise<unknown>;
  graphTools(): Promise<unknown>;
  graphTool(name: string): Promise<unknown>;
  graphRun(runId: string): Promise<unknown>;
  graphRunExecution(runId: string, index: number): Promise<unknown>;
  runGraphTool(name: string, args: unknown): Promise<unknown>;
  knowledgeProjects(): Promise<unknown>;
  knowledgeNodes(project: string, filter: KnowledgeNodeFilter): Promise<unknown>;
  knowledgeNode(project: string, id: string): Promise<unknown>;
  knowledgeDeleted(project: string): Promise<unknown>;
  knowledgeBackups(project: string): Promise<unknown>;
  restoreKnowledge(project: string, nodeIds: string[]): Promise<unknown>;
}
