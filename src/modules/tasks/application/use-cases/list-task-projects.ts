import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import type { UseCase } from '../../../../kernel/use-case';
import { countByStatus, type TaskStatus } from '../../domain';
import { TasksTokens } from '../tasks.tokens';
import type { TaskGraphStore } from '../ports/task-graph-store';

export interface TaskProjectSummary {
  id: string;
  name: string;
  root: string;
  counts: Record<TaskStatus, number>;
  total: number;
  updatedAt: string;
}

/** Every project with a task graph, with its task counts per status (the dashboard's overview). */
@injectable()
export class ListTaskProjects implements UseCase<Record<string, never>, { projects: TaskProjectSummary[] }> {
  constructor(@inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore) {}

  async execute(_input: Record<string, never> = {}, ctx?: CallContext): Promise<{ projects: TaskProjectSummary[] }> {
    const projects: TaskProjectSummary[] = [];
    const reach = reachOf(ctx);
    for (const id of await this.store.listProjects()) {
      const graph = await this.store.load(id).catch(() => undefined);
      // A project whose file is unreadable right now is left out of the list; its own page reports the error.
      if (!graph || !reach.covers(graph.project_root)) continue;
      projects.push({
        id,
        name: graph.project_name,
        root: graph.project_root,
        counts: countByStatus(graph),
        total: graph.nodes.length,
        updatedAt: graph.updated_at,
      });
    }
    return { projects };
  }
}
