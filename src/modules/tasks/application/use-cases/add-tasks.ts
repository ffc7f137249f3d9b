import { inject, injectable } from 'tsyringe';
import { addTasks, type TaskNodeDefinition } from '../../domain';
import { TasksTokens } from '../tasks.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import type { PlanChanges } from '../services/plan-changes';
import { editAnswer, type PlanEditAnswer } from '../services/plan-edit-answer';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { addTasksSchemas } from '../task-plan-edit.tool-schemas';

export type AddTasksInput = ToolInput<typeof addTasksSchemas>;

/**
 * `add_tasks`: new tasks in the init_project_graph node shape, depending on existing or new ones (READY when every
 * dependency is COMPLETED, else PENDING). Refuses existing ids, unknown dependencies and cycles (named); a stale
 * `expectedRevision` is `conflict`.
 */
@injectable()
export class AddTasks implements UseCase<AddTasksInput, ToolOutput<typeof addTasksSchemas>> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(TasksTokens.PlanChanges) private readonly plan: PlanChanges,
  ) {}

  async execute(input: AddTasksInput, ctx?: CallContext): Promise<PlanEditAnswer> {
    const projectId = this.store.projectIdOf(input.project);
    const who = this.plan.claimant(ctx, input.agent);
    const call = { who, action: 'add_tasks', expectedRevision: input.expectedRevision, reason: input.reason, project: input.project, reach: reachOf(ctx) };
    const { value } = await this.plan.change(projectId, call, (graph, at) => {
      const edit = addTasks(graph, input.nodes as TaskNodeDefinition[], at.iso);
      const reason = `added ${summarize(edit.nodes)}`;
      return { graph: edit.graph, transitions: edit.transitions, nodes: edit.nodes, reason, value: { edit, reason, revision: graph.revision + 1 } };
    });
    return editAnswer(value.edit, value.revision, value.reason);
  }
}

/** `a, b, c` or `a, b, c and 7 more`. */
export function summarize(ids: readonly string[], max = 5): string {
  const shown = ids.slice(0, max).map((id) => `'${id}'`).join(', ');
  return ids.length > max ? `${shown} and ${ids.length - max} more` : shown;
}
