import { inject, injectable } from 'tsyringe';
import { claimFor, setClaim, updateTask, type TaskPatch } from '../../domain';
import { TasksTokens } from '../tasks.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import type { PlanChanges } from '../services/plan-changes';
import { editAnswer, requireEditable, type PlanEditAnswer } from '../services/plan-edit-answer';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { updateTaskSchemas } from '../task-plan-edit.tool-schemas';

export type UpdateTaskInput = ToolInput<typeof updateTaskSchemas>;

const FIELDS = ['title', 'description', 'validation_command', 'max_attempts', 'timeout_ms', 'output_tail_bytes', 'depends_on', 'priority', 'tags', 'metadata'] as const;

/**
 * `update_task`: changes a task's fields (see `updateTask` in the domain for the rules: refused while its command
 * runs, dependencies frozen while its work is under way, a COMPLETED task's changed "done" sends it and what follows
 * back). Another agent's claimed task is refused; the claimant's own edit renews its claim.
 */
@injectable()
export class UpdateTask implements UseCase<UpdateTaskInput, ToolOutput<typeof updateTaskSchemas>> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(TasksTokens.PlanChanges) private readonly plan: PlanChanges,
  ) {}

  async execute(input: UpdateTaskInput, ctx?: CallContext): Promise<PlanEditAnswer> {
    const projectId = this.store.projectIdOf(input.project);
    const who = this.plan.claimant(ctx, input.agent);
    const patch: TaskPatch = {};
    const given = FIELDS.filter((f) => input[f] !== undefined);
    for (const f of given) (patch as Record<string, unknown>)[f] = input[f];
    const call = { who, action: 'update_task', expectedRevision: input.expectedRevision, reason: input.reason, project: input.project, reach: reachOf(ctx) };
    const { value } = await this.plan.change(projectId, call, (graph, at) => {
      requireEditable(graph, [input.nodeId], who, at.ms, 'update_task');
      const edit = updateTask(graph, input.nodeId, patch, at.iso);
      const node = edit.graph.nodes.find((n) => n.id === input.nodeId)!;
      if (node.claim) edit.graph = setClaim(edit.graph, node.id, claimFor(who, at.ms, this.plan.claimTtlMs, node.claim));
      const reason = `updated '${input.nodeId}' (${given.join(', ') || 'nothing'})` + (edit.cascaded.length ? `; sent back ${edit.cascaded.map((c) => c.id).join(', ')}` : '');
      return { graph: edit.graph, transitions: edit.transitions, nodes: [...edit.nodes, ...edit.cascaded.map((c) => c.id)], reason, value: { edit, reason, revision: graph.revision + 1 } };
    });
    return editAnswer(value.edit, value.revision, value.reason);
  }
}
