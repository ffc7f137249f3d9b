import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import { ConflictError } from '../../../../kernel/errors';
import { applyTaskEvent } from '../../domain';
import { Tokens } from '../../../../kernel/tokens';
import { TasksTokens } from '../tasks.tokens';
import type { Clock } from '../../../../kernel/clock';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import { TaskMessages } from '../services/task-messages';
import { loadProjectGraph, requireInReach, timeOf } from '../services/task-graph-views';
import type { ValidationRunService } from '../services/validation-run';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { resetTaskNodeSchemas } from '../tasks.tool-schemas';

/** The tool's input, as its schema in tasks.tool-schemas.ts describes it. */
export type ResetTaskNodeInput = ToolInput<typeof resetTaskNodeSchemas>;

/** The tool's answer, as its output schema describes it (`reverted`: READY dependents sent back to PENDING). */
export type ResetTaskNodeOutput = ToolOutput<typeof resetTaskNodeSchemas>;

/**
 * `reset_task_node`: FAILED, RETRYING, IN_PROGRESS or COMPLETED (or a VALIDATING node whose run is orphaned: see the run lease) back to
 * READY or PENDING by its dependencies; attempts cleared, error_logs kept. Refused while its command runs (here, or
 * in another live server process holding the run's lease).
 */
@injectable()
export class ResetTaskNode implements UseCase<ResetTaskNodeInput, ResetTaskNodeOutput> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(TasksTokens.ValidationRunService) private readonly runs: ValidationRunService,
  ) {}

  async execute(input: ResetTaskNodeInput, ctx?: CallContext): Promise<ResetTaskNodeOutput> {
    const projectId = this.store.projectIdOf(input.project);
    const reach = reachOf(ctx);
    // Out of reach is not found before anything else answers (a running validation would confirm the project).
    if (reach.roots) await loadProjectGraph(this.store, input.project, reach);
    if (this.runs.active(projectId, input.nodeId)) {
      throw new ConflictError(TaskMessages.resetWhileRunning(input.nodeId), { node: input.nodeId });
    }
    const { node, reverted } = await this.store.update(projectId, (graph) => {
      requireInReach(graph, input.project, reach);
      this.runs.stopOrphanedRun(graph.nodes.find((n) => n.id === input.nodeId));
      const r = applyTaskEvent(graph, input.nodeId, { type: 'reset', facts: this.runs.hostFacts() }, timeOf(this.clock.now()));
      return { graph: r.graph, transitions: r.transitions, value: { node: r.node, reverted: r.reverted } };
    });
    return { node, reverted, message: TaskMessages.reset(node, reverted) };
  }
}
