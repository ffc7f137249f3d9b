import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import type { UseCase } from '../../../../kernel/use-case';
import { dependentsOf, type TaskNode, type TaskTransition } from '../../domain';
import { TasksTokens } from '../tasks.tokens';
import type { TaskGraphStore } from '../ports/task-graph-store';
import { loadProjectGraph, requireNode } from '../services/task-graph-views';

export interface TaskDetails {
  project: string;
  node: TaskNode;
  /** Its status changes from the transition log, oldest first. */
  transitions: TaskTransition[];
  /** Ids of the tasks that depend on it directly. */
  dependents: string[];
}

/** One task with its transition history (the dashboard's node details). @throws NotFoundError naming project or task. */
@injectable()
export class GetTaskDetails implements UseCase<{ project: string; nodeId: string }, TaskDetails> {
  constructor(@inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore) {}

  async execute(input: { project: string; nodeId: string }, ctx?: CallContext): Promise<TaskDetails> {
    const { projectId, graph } = await loadProjectGraph(this.store, input.project, reachOf(ctx));
    const node = requireNode(graph, input.nodeId);
    const transitions = (await this.store.readTransitions(projectId)).filter((t) => t.node === node.id);
    return { project: projectId, node, transitions, dependents: dependentsOf(graph, node.id).map((n) => n.id) };
  }
}
