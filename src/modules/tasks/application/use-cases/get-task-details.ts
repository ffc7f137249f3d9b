import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import type { UseCase } from '../../../../kernel/use-case';
import { dependentsOf, type PlanChange, type TaskNode, type TaskTransition } from '../../domain';
import { TasksTokens } from '../tasks.tokens';
import type { TaskGraphStore } from '../ports/task-graph-store';
import { loadProjectGraph, requireNode } from '../services/task-graph-views';
import type { ToolInput } from '../../../../kernel/tools/tool-schema';
import type { getTaskDetailsSchemas } from '../tasks.tool-schemas';

export type GetTaskDetailsInput = ToolInput<typeof getTaskDetailsSchemas>;

export interface TaskDetails {
  project: string;
  node: TaskNode;
  /** Its status changes from the transition log, oldest first (with those of the task it was split from). */
  transitions: TaskTransition[];
  /** Ids of the tasks that depend on it directly. */
  dependents: string[];
  /** The changes of the plan that concern it (or the task it was split from), oldest first. */
  history: PlanChange[];
  revision: number;
}

/**
 * `get_task_details` (and the dashboard's task page): one task with its transitions, dependents and history of
 * changes. @throws NotFoundError naming project or task.
 */
@injectable()
export class GetTaskDetails implements UseCase<GetTaskDetailsInput, TaskDetails> {
  constructor(@inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore) {}

  async execute(input: GetTaskDetailsInput, ctx?: CallContext): Promise<TaskDetails> {
    const { projectId, graph } = await loadProjectGraph(this.store, input.project, reachOf(ctx));
    const node = requireNode(graph, input.nodeId);
    const ids = node.split_from ? [node.id, node.split_from] : [node.id];
    const transitions = await this.store.readTransitions(projectId, { nodes: ids });
    const history = await this.store.readHistory(projectId, { nodes: ids });
    return { project: projectId, node, transitions, dependents: dependentsOf(graph, node.id).map((n) => n.id), history, revision: graph.revision };
  }
}
