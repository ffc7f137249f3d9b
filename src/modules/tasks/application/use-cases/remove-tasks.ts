import { inject, injectable } from 'tsyringe';
import { removeTasks } from '../../domain';
import { TasksTokens } from '../tasks.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import type { PlanChanges } from '../services/plan-changes';
import { editAnswer, requireEditable, type PlanEditAnswer } from '../services/plan-edit-answer';
import { summarize } from './add-tasks';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { removeTasksSchemas } from '../task-plan-edit.tool-schemas';

export type RemoveTasksInput = ToolInput<typeof removeTasksSchemas>;

/**
 * `remove_tasks`: refused while any of them runs, while another agent claims one, and while a remaining task depends
 * on one (`has_dependents`, naming them) unless the same call removes it too or re-points it (`repoint`).
 */
@injectable()
export class RemoveTasks implements UseCase<RemoveTasksInput, ToolOutput<typeof removeTasksSchemas>> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(TasksTokens.PlanChanges) private readonly plan: PlanChanges,
  ) {}

  async execute(input: RemoveTasksInput, ctx?: CallContext): Promise<PlanEditAnswer> {
    const projectId = this.store.projectIdOf(input.project);
    const who = this.plan.claimant(ctx, input.agent);
    const call = { who, action: 'remove_tasks', expectedRevision: input.expectedRevision, reason: input.reason, project: input.project, reach: reachOf(ctx) };
    const repoint = (input.repoint ?? {}) as Record<string, string[]>;
    const { value } = await this.plan.change(projectId, call, (graph, at) => {
      requireEditable(graph, [...input.nodeIds, ...Object.keys(repoint)], who, at.ms, 'remove_tasks');
      const edit = removeTasks(graph, input.nodeIds, repoint, at.iso);
      const ids = [...new Set(input.nodeIds)];
      const reason = `removed ${summarize(ids)}` + (Object.keys(repoint).length ? `; re-pointed ${summarize(Object.keys(repoint))}` : '');
      return { graph: edit.graph, transitions: edit.transitions, nodes: edit.nodes, reason, value: { edit, ids, reason, revision: graph.revision + 1 } };
    });
    return editAnswer(value.edit, value.revision, value.reason, value.ids);
  }
}
