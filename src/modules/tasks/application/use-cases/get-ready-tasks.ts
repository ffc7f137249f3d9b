import { inject, injectable } from 'tsyringe';
import { startableNodes, type TaskStatus } from '../../domain';
import { TasksTokens } from '../tasks.tokens';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import { loadProjectGraph } from '../services/task-graph-views';

export interface GetReadyTasksInput {
  /** Project name or id. */
  project: string;
}

export interface GetReadyTasksOutput {
  ready_count: number;
  ready_tasks: { id: string; title: string; status: TaskStatus }[];
}

/** `get_ready_tasks`: the READY and RETRYING nodes of a project (both accept `start_task`), in graph order. */
@injectable()
export class GetReadyTasks implements UseCase<GetReadyTasksInput, GetReadyTasksOutput> {
  constructor(@inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore) {}

  async execute(input: GetReadyTasksInput): Promise<GetReadyTasksOutput> {
    const { graph } = await loadProjectGraph(this.store, input.project);
    const ready = startableNodes(graph).map((n) => ({ id: n.id, title: n.title, status: n.status }));
    return { ready_count: ready.length, ready_tasks: ready };
  }
}
