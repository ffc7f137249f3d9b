import { inject, injectable } from 'tsyringe';
import { ConflictError } from '../../../../kernel/errors';
import { applyTaskEvent, type TaskNode } from '../../domain';
import { Tokens } from '../../../../kernel/tokens';
import { TasksTokens } from '../tasks.tokens';
import type { Clock } from '../../../../kernel/clock';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import { timeOf } from '../services/task-graph-views';
import { ValidationRunRegistry } from '../services/validation-run-registry';

export interface ResetTaskNodeInput {
  /** Project name or id. */
  project: string;
  nodeId: string;
}

export interface ResetTaskNodeOutput {
  node: TaskNode;
  /** READY dependents sent back to PENDING (reset of a COMPLETED node). */
  reverted: string[];
  message: string;
}

/**
 * `reset_task_node`: FAILED, RETRYING, IN_PROGRESS or COMPLETED (or a stale VALIDATING left by a dead server) back to
 * READY or PENDING by its dependencies; attempts cleared, error_logs kept. Refused while its command runs.
 */
@injectable()
export class ResetTaskNode implements UseCase<ResetTaskNodeInput, ResetTaskNodeOutput> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(TasksTokens.ValidationRunRegistry) private readonly runs: ValidationRunRegistry,
  ) {}

  async execute(input: ResetTaskNodeInput): Promise<ResetTaskNodeOutput> {
    const projectId = this.store.projectIdOf(input.project);
    if (this.runs.activeRun(ValidationRunRegistry.keyOf(projectId, input.nodeId))) {
      throw new ConflictError(
        `task '${input.nodeId}' cannot be reset: its validation command is running; wait for validate_task_loop to return`,
        { node: input.nodeId },
      );
    }
    const { node, reverted } = await this.store.update(projectId, (graph) => {
      const r = applyTaskEvent(graph, input.nodeId, { type: 'reset' }, timeOf(this.clock.now()));
      return { graph: r.graph, transitions: r.transitions, value: { node: r.node, reverted: r.reverted } };
    });
    return {
      node,
      reverted,
      message:
        `task '${node.id}' was reset to ${node.status}` +
        (reverted.length ? `; dependent task(s) ${reverted.join(', ')} went back to PENDING` : '') +
        (node.status === 'READY' ? '; call start_task to work on it again.' : '; it becomes READY when its dependencies are COMPLETED.'),
    };
  }
}
