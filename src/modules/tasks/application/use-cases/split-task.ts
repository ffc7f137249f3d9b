import { inject, injectable } from 'tsyringe';
import { splitTask, type TaskNodeDefinition } from '../../domain';
import { TasksTokens } from '../tasks.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import type { PlanChanges } from '../services/plan-changes';
import { editAnswer, type PlanEditAnswer } from '../services/plan-edit-answer';
import { summarize } from './add-tasks';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { splitTaskSchemas } from '../task-plan-edit.tool-schemas';

export type SplitTaskInput = ToolInput<typeof splitTaskSchemas>;

/**
 * `split_task`: one task becomes several; its dependents depend on the new leaves; its history is kept on the first
 * (see `splitTask` in the domain). Refused while the task has work under way or is COMPLETED (`has_progress`).
 */
@injectable()
export class SplitTask implements UseCase<SplitTaskInput, ToolOutput<typeof splitTaskSchemas>> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(TasksTokens.PlanChanges) private readonly plan: PlanChanges,
  ) {}

  async execute(input: SplitTaskInput, ctx?: CallContext): Promise<PlanEditAnswer> {
    const projectId = this.store.projectIdOf(input.project);
    const who = this.plan.claimant(ctx, input.agent);
    const call = { who, action: 'split_task', expectedRevision: input.expectedRevision, reason: input.reason, project: input.project, reach: reachOf(ctx) };
    const { value } = await this.plan.change(projectId, call, (graph, at) => {
      const edit = splitTask(graph, input.nodeId, input.into as TaskNodeDefinition[], at.iso);
      const reason = `split '${input.nodeId}' into ${summarize(input.into.map((d) => d.id))}`;
      return { graph: edit.graph, transitions: edit.transitions, nodes: edit.nodes, reason, value: { edit, reason, revision: graph.revision + 1 } };
    });
    const removed = input.into.some((d) => d.id === input.nodeId) ? undefined : [input.nodeId];
    return editAnswer(value.edit, value.revision, value.reason, removed);
  }
}
