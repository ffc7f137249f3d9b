import type { ChangeEvents } from '../../../kernel/change-events';
import type { PlanChange, TaskGraph, TaskTransition } from '../domain/task-graph';
import type { CreateOptions, ImportOptions, TaskGraphChange, TaskGraphStore, TransitionQuery } from '../application/ports/task-graph-store';

/**
 * A decorator over any TaskGraphStore that publishes `{kind: 'tasks', project, id}` on the change-event port after
 * every successful write (live views: MCP resource subscriptions, the dashboard). An update whose function wrote
 * nothing publishes nothing.
 */
export class ChangePublishingTaskGraphStore implements TaskGraphStore {
  constructor(
    private readonly inner: TaskGraphStore,
    private readonly changes: ChangeEvents,
  ) {}

  projectIdOf(nameOrId: string): string {
    return this.inner.projectIdOf(nameOrId);
  }

  load(projectId: string): Promise<TaskGraph | undefined> {
    return this.inner.load(projectId);
  }

  async create(graph: TaskGraph, opts?: CreateOptions): Promise<number> {
    const revision = await this.inner.create(graph, opts);
    this.publish(graph.project_id);
    return revision;
  }

  async update<T>(projectId: string, change: (current: TaskGraph) => TaskGraphChange<T>): Promise<T> {
    let wrote = false;
    const value = await this.inner.update(projectId, (current) => {
      const decided = change(current);
      wrote = decided.graph !== undefined;
      return decided;
    });
    if (wrote) this.publish(projectId);
    return value;
  }

  readHistory(projectId: string, opts?: { nodes?: readonly string[]; limit?: number }): Promise<PlanChange[]> {
    return this.inner.readHistory(projectId, opts);
  }

  readTransitions(projectId: string, opts?: TransitionQuery): Promise<TaskTransition[]> {
    return this.inner.readTransitions(projectId, opts);
  }

  listProjects(): Promise<string[]> {
    return this.inner.listProjects();
  }

  async importProject(graph: TaskGraph, transitions: readonly TaskTransition[], opts?: ImportOptions): Promise<'imported' | 'unchanged' | 'skipped'> {
    const outcome = await this.inner.importProject(graph, transitions, opts);
    if (outcome === 'imported') this.publish(graph.project_id);
    return outcome;
  }

  private publish(project: string): void {
    this.changes.publish({ kind: 'tasks', project, id: project, at: new Date().toISOString() });
  }
}
