import type { DependencyContainer } from 'tsyringe';
import { InvalidArgumentsError, NotFoundError } from '../kernel/errors';
import type { CallContext } from '../kernel/call-context';
import { GraphTokens } from '../modules/graph';
import { KnowledgeTokens } from '../modules/knowledge';
import { TasksTokens } from '../modules/tasks';
import type { DashboardBackend, KnowledgeNodeFilter } from './dashboard-backend';

/** The one shape every use case has; the dashboard only calls `execute`. */
interface Executable {
  execute(input: unknown, ctx?: CallContext): unknown;
}

const RECENT_RUNS_ON_OVERVIEW = 10;
const KNOWLEDGE_ROLES = new Set(['actor', 'critic', 'summary']);

/**
 * The dashboard's backend: every endpoint answered by a module use case resolved from the container — the same use
 * cases, errors and codes as the MCP tools (reset_task_node, restore_nodes, …) plus the read-side ones the dashboard
 * needs (projects, transitions, recorded runs, deleted nodes, backups).
 */
export class ContainerBackend implements DashboardBackend {
  constructor(private readonly c: DependencyContainer) {}

  private run<T>(token: symbol, input: unknown = {}): Promise<T> {
    return Promise.resolve(this.c.resolve<Executable>(token).execute(input)) as Promise<T>;
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
    const { mermaid: _mermaid, ...view } = await this.run<Record<string, unknown>>(TasksTokens.GetProjectGraph, { project });
    const details = view as { nodes: Array<{ updated_at: string }> };
    return { ...view, revision: details.nodes.reduce((m, n) => (n.updated_at > m ? n.updated_at : m), '') };
  }

  taskDetails(project: string, nodeId: string): Promise<unknown> {
    return this.run(TasksTokens.GetTaskDetails, { project, nodeId });
  }

  resetTask(project: string, nodeId: string): Promise<unknown> {
    return this.run(TasksTokens.ResetTaskNode, { project, nodeId });
  }

  async sessions(): Promise<unknown> {
    return { available: false, sessions: [] };
  }

  async session(id: string): Promise<unknown> {
    throw new NotFoundError('workflow session', id, `workflow session '${id}' not found: this version records no workflow sessions`);
  }

  graphTools(): Promise<unknown> {
    return this.run(GraphTokens.ListGraphTools, {});
  }

  graphTool(name: string): Promise<unknown> {
    return this.run(GraphTokens.DescribeGraphTool, { name });
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

  knowledgeProjects(): Promise<unknown> {
    return this.run(KnowledgeTokens.ListKnowledgeProjects);
  }

  knowledgeNodes(project: string, f: KnowledgeNodeFilter): Promise<unknown> {
    if (f.role !== undefined && !KNOWLEDGE_ROLES.has(f.role)) {
      return Promise.reject(new InvalidArgumentsError(`role: expected one of actor, critic, summary (got '${f.role}')`, 'role'));
    }
    return this.run(KnowledgeTokens.ListKnowledgeNodes, {
      projectContext: project,
      ...(f.role ? { role: f.role } : {}),
      ...(f.tag ? { tags: [f.tag] } : {}),
      ...(f.text ? { text: f.text } : {}),
      ...(f.cursor ? { cursor: f.cursor } : {}),
      limit: f.limit ?? 50,
    });
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
    return { available: false, active: [] };
  }
}
