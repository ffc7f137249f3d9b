import type { DependencyContainer } from 'tsyringe';
import { InvalidArgumentsError, NotFoundError } from '../kernel/errors';
import { noopCallContext, type CallContext } from '../kernel/call-context';
import { dashboardCaller } from './dashboard-caller';
import { GraphTokens } from '../modules/graph';
import { KnowledgeTokens } from '../modules/knowledge';
import { TasksTokens } from '../modules/tasks';
import { WorkflowTokens } from '../modules/workflow';
import { sessionDetail, sessionSummary, type SessionListEntryLike, type SessionTimelineLike, type WorkflowStepLike } from './session-view';
import type { DashboardBackend, DebugControl, DebugStart, KnowledgeNodeFilter } from './dashboard-backend';

/** The one shape every use case has; the dashboard only calls `execute`. */
interface Executable {
  execute(input: unknown, ctx?: CallContext): unknown;
}

const RECENT_RUNS_ON_OVERVIEW = 10;
/**
 * The workflow module's session use cases (workflow_sessions, workflow_session), by their token names: sessions are
 * shown when the module registers them, and the dashboard answers "none recorded" otherwise.
 */
const SessionTokens = {
  ListSessions: Symbol.for('workgraph.ListSessions'),
  GetSessionTimeline: Symbol.for('workgraph.GetSessionTimeline'),
} as const;
const KNOWLEDGE_ROLES = new Set(['actor', 'critic', 'summary']);

/**
 * The dashboard's backend: every endpoint answered by a module use case resolved from the container — the same use
 * cases, errors and codes as the MCP tools (reset_task_node, restore_nodes, …) plus the read-side ones the dashboard
 * needs (projects, transitions, recorded runs, deleted nodes, backups).
 */
export class ContainerBackend implements DashboardBackend {
  constructor(private readonly c: DependencyContainer) {}

  private run<T>(token: symbol, input: unknown = {}): Promise<T> {
    // As the request's identity: the dashboard reaches what its token may reach through MCP (docs/http.md).
    return Promise.resolve(this.c.resolve<Executable>(token).execute(input, noopCallContext(undefined, dashboardCaller()))) as Promise<T>;
  }

  async overview(): Promise<unknown> {
    const [projects, runs, knowledge] = await Promise.all([
      this.run<{ projects: unknown[] }>(TasksTokens.ListTaskProjects),
      this.run<{ runs: unknown[] }>(GraphTokens.ListGraphRuns, { limit: RECENT_RUNS_ON_OVERVIEW }),
      this.run<{ projects: unknown[] }>(KnowledgeTokens.ListKnowledgeProjects),
    ]);
    return { projects: projects.projects, sessions: await this.sessionsOverview(), graphRuns: runs.runs, knowledge: knowledge.projects };
  }

  async taskGraph(project: string): Promise<unknown> {
    // The Mermaid text of get_project_graph is for chats; the page draws the DAG itself.
    // Its revision grows on every write (a claim, an edit, a status change): the page keys its task details on it.
    const { mermaid: _mermaid, ...view } = await this.run<Record<string, unknown>>(TasksTokens.GetProjectGraph, { project });
    return view;
  }

  taskDetails(project: string, nodeId: string): Promise<unknown> {
    return this.run(TasksTokens.GetTaskDetails, { project, nodeId });
  }

  resetTask(project: string, nodeId: string): Promise<unknown> {
    return this.run(TasksTokens.ResetTaskNode, { project, nodeId });
  }

  /** True when the workflow module records sessions (its session use cases are registered). */
  get sessionsAvailable(): boolean {
    return this.c.isRegistered(SessionTokens.ListSessions, true) && this.c.isRegistered(SessionTokens.GetSessionTimeline, true);
  }

  async sessions(): Promise<unknown> {
    if (!this.sessionsAvailable) return { available: false, sessions: [] };
    const r = await this.run<{ sessions: SessionListEntryLike[] }>(SessionTokens.ListSessions, { limit: 500 });
    return { available: true, sessions: r.sessions.map((s) => sessionSummary(s)) };
  }

  async session(id: string, cursor?: string): Promise<unknown> {
    if (!this.sessionsAvailable) throw new NotFoundError('workflow session', id, `workflow session '${id}' not found: this version records no workflow sessions`);
    const t = await this.run<SessionTimelineLike>(SessionTokens.GetSessionTimeline, { sessionId: id, ...(cursor !== undefined ? { cursor } : {}) });
    // The workflow's steps as loaded now (the session runs its pinned copy; the page says when a newer one exists).
    const wf = await this.run<{ steps?: WorkflowStepLike[] }>(WorkflowTokens.GetWorkflow, { id: t.workflow.id }).catch(() => ({ steps: [] }));
    return sessionDetail(t, wf.steps ?? []);
  }

  graphTools(): Promise<unknown> {
    return this.run(GraphTokens.ListGraphTools, {});
  }

  graphTool(name: string, runId?: string): Promise<unknown> {
    return this.run(GraphTokens.DescribeGraphTool, { name, ...(runId !== undefined ? { runId } : {}) });
  }

  async graphRun(runId: string): Promise<unknown> {
    const r = await this.run<{ executions: Array<{ output?: unknown }> } & Record<string, unknown>>(GraphTokens.GetGraphRun, { runId });
    // The timeline needs no outputs; one execution's output comes with its own request (a run may hold thousands).
    return { ...r, executions: r.executions.map(({ output: _o, ...e }) => e) };
  }

  graphRunExecution(runId: string, index: number): Promise<unknown> {
    return this.run(GraphTokens.GetGraphRunExecution, { runId, executionIndex: index });
  }

  runGraphTool(name: string, args: unknown): Promise<unknown> {
    return this.run(GraphTokens.RunGraphTool, { tool: name, args });
  }

  debugGraphTool(name: string, start: DebugStart): Promise<unknown> {
    return this.run(GraphTokens.StartGraphDebugRun, { tool: name, ...start });
  }

  debugRun(runId: string): Promise<unknown> {
    return this.run(GraphTokens.GetGraphDebugRun, { runId });
  }

  controlDebugRun(runId: string, control: DebugControl): Promise<unknown> {
    return this.run(GraphTokens.ControlGraphDebugRun, { runId, ...control });
  }

  knowledgeProjects(): Promise<unknown> {
    return this.run(KnowledgeTokens.ListKnowledgeProjects);
  }

  knowledgeNodes(project: string, f: KnowledgeNodeFilter): Promise<unknown> {
    if (f.role !== undefined && !KNOWLEDGE_ROLES.has(f.role)) {
      return Promise.reject(new InvalidArgumentsError(`role: expected one of actor, critic, summary (got '${f.role}')`, 'role'));
    }
    if (f.text) return this.searchKnowledge(project, f);
    return this.run(KnowledgeTokens.ListKnowledgeNodes, {
      projectContext: project,
      ...(f.role ? { role: f.role } : {}),
      ...(f.tag ? { tags: [f.tag] } : {}),
      ...(f.cursor ? { cursor: f.cursor } : {}),
      limit: f.limit ?? 50,
    });
  }

  /** Text given: search_nodes (ranked, best first; each node with its score and its snippet, matches marked **so**). */
  private async searchKnowledge(project: string, f: KnowledgeNodeFilter): Promise<unknown> {
    const r = await this.run<{ hits: unknown[]; nextCursor: string | null; total: number; totalExact: boolean }>(KnowledgeTokens.SearchKnowledgeNodes, {
      projectContext: project,
      query: f.text,
      ...(f.role ? { role: f.role } : {}),
      ...(f.tag ? { tags: [f.tag] } : {}),
      ...(f.cursor ? { cursor: f.cursor } : {}),
      limit: Math.min(f.limit ?? 50, 100),
    });
    return { nodes: r.hits, nextCursor: r.nextCursor, total: r.total, totalExact: r.totalExact };
  }

  async knowledgeNode(project: string, id: string): Promise<unknown> {
    const r = await this.run<{ node: unknown }>(KnowledgeTokens.GetKnowledgeNode, { projectContext: project, id });
    return r.node;
  }

  knowledgeDeleted(project: string): Promise<unknown> {
    return this.run(KnowledgeTokens.ListDeletedKnowledgeNodes, { projectContext: project });
  }

  knowledgeBackups(project: string): Promise<unknown> {
    return this.run(KnowledgeTokens.ListKnowledgeBackups, { projectContext: project });
  }

  async restoreKnowledge(project: string, nodeIds: string[]): Promise<unknown> {
    const r = await this.run<{ restoredNodeIds: string[] } & Record<string, unknown>>(KnowledgeTokens.RestoreKnowledgeNodes, { projectContext: project, nodeIds });
    return { ...r, restored: r.restoredNodeIds };
  }

  private async sessionsOverview(): Promise<{ available: boolean; active: unknown[] }> {
    if (!this.sessionsAvailable) return { available: false, active: [] };
    const r = await this.run<{ sessions: SessionListEntryLike[] }>(SessionTokens.ListSessions, { status: ['active', 'needs_attention'], limit: 20 });
    return { available: true, active: r.sessions.map((s) => sessionSummary(s)) };
  }
}
