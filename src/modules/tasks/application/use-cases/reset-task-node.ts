import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import { ConflictError } from '../../../../kernel/errors';
import { applyTaskEvent, requireClaimant } from '../../domain';
import { TasksTokens } from '../tasks.tokens';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import { TaskMessages } from '../services/task-messages';
import type { PlanChanges } from '../services/plan-changes';
import { loadProjectGraph } from '../services/task-graph-views';
import type { ValidationRunService } from '../services/validation-run';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { resetTaskNodeSchemas } from '../tasks.tool-schemas';

/** The tool's input, as its schema in tasks.tool-schemas.ts describes it. */
export type ResetTaskNodeInput = ToolInput<typeof resetTaskNodeSchemas>;

/** The tool's answer, as its output schema describes it (`reverted`: READY dependents sent back to PENDING). */
export type ResetTaskNodeOutput = ToolOutput<typeof resetTaskNodeSchemas>;

/**
 * `reset_task_node`: FAILED, RETRYING, IN_PROGRESS or COMPLETED (or a VALIDATING node whose run is orphaned: see the run lease) back to
 * READY or PENDING by its dependencies; attempts cleared, error_logs kept, the claim dropped. Refused while its command
 * runs (here, or in another live server process holding the run's lease) and while another agent claims it.
 */
@injectable()
export class ResetTaskNode implements UseCase<ResetTaskNodeInput, ResetTaskNodeOutput> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(TasksTokens.ValidationRunService) private readonly runs: ValidationRunService,
    @inject(TasksTokens.PlanChanges) private readonly plan: PlanChanges,
  ) {}

  async execute(input: ResetTaskNodeInput, ctx?: CallContext): Promise<ResetTaskNodeOutput> {
    const projectId = this.store.projectIdOf(input.project);
    const reach = reachOf(ctx);
    // Out of reach is not found before anything else answers (a running validation would confirm the project).
    if (reach.roots) await loadProjectGraph(this.store, input.project, reach);
    if (this.runs.active(projectId, input.nodeId)) {
      throw new ConflictError(TaskMessages.resetWhileRunning(input.nodeId), { node: input.nodeId });
    }
    const who = this.plan.claimant(ctx, input.agent);
    const { value, revision } = await this.plan.change(projectId, { who, action: 'reset_task_node', reason: input.reason, project: input.project, reach }, (graph, at) => {
      const before = graph.nodes.find((n) => n.id === input.nodeId);
      if (before) requireClaimant(before, who, at.ms, 'reset_task_node');
      this.runs.stopOrphanedRun(before);
      const r = applyTaskEvent(graph, input.nodeId, { type: 'reset', facts: this.runs.hostFacts() }, at);
      return {
        graph: r.graph,
        transitions: r.transitions,
        nodes: [input.nodeId, ...r.reverted],
        reason: `reset '${input.nodeId}' to ${r.node.status}${r.reverted.length ? `; ${r.reverted.join(', ')} back to PENDING` : ''}`,
        value: { node: r.node, reverted: r.reverted },
      };
    });
    return { node: value.node, reverted: value.reverted, message: TaskMessages.reset(value.node, value.reverted), revision };
  }
}
