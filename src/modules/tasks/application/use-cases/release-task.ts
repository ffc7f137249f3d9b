import { inject, injectable } from 'tsyringe';
import { ConflictError, InvalidTransitionError } from '../../../../kernel/errors';
import { describeClaimant, requireClaimant, TaskStatus, type TaskNode } from '../../domain';
import { TasksTokens } from '../tasks.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import { TaskMessages } from '../services/task-messages';
import type { PlanChanges } from '../services/plan-changes';
import { requireNode } from '../services/task-graph-views';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { releaseTaskSchemas } from '../tasks.tool-schemas';

export type ReleaseTaskInput = ToolInput<typeof releaseTaskSchemas>;
export type ReleaseTaskOutput = ToolOutput<typeof releaseTaskSchemas>;

/**
 * `release_task`: the claimant gives a started task up: IN_PROGRESS goes back to READY, RETRYING stays RETRYING, the
 * attempt count is kept and the claim dropped. Refused while its command runs and for anyone but the claimant.
 */
@injectable()
export class ReleaseTask implements UseCase<ReleaseTaskInput, ReleaseTaskOutput> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(TasksTokens.PlanChanges) private readonly plan: PlanChanges,
  ) {}

  async execute(input: ReleaseTaskInput, ctx?: CallContext): Promise<ReleaseTaskOutput> {
    const projectId = this.store.projectIdOf(input.project);
    const who = this.plan.claimant(ctx, input.agent);
    const { value: node, revision } = await this.plan.change(projectId, { who, action: 'release_task', reason: input.reason, project: input.project, reach: reachOf(ctx) }, (graph, at) => {
      const n = requireNode(graph, input.nodeId);
      if (n.status === TaskStatus.Validating) {
        throw new ConflictError(`task '${n.id}' is VALIDATING: its command runs; release_task is refused until validate_task_loop returns`, { node: n.id });
      }
      if (n.status !== TaskStatus.InProgress && n.status !== TaskStatus.Retrying) {
        throw new InvalidTransitionError(`task '${n.id}'`, n.status, 'release_task', n.status === TaskStatus.Ready ? ['start_task'] : []);
      }
      requireClaimant(n, who, at.ms, 'release_task');
      const { claim, ...rest } = n;
      const next: TaskNode = n.status === TaskStatus.InProgress ? { ...rest, status: TaskStatus.Ready, updated_at: at.iso } : rest;
      const transitions = next.status !== n.status ? [{ node: n.id, from: n.status, to: next.status, time: at.iso, attempt: n.current_attempt }] : [];
      return {
        graph: { ...graph, updated_at: at.iso, nodes: graph.nodes.map((x) => (x.id === n.id ? next : x)) },
        transitions,
        nodes: [n.id],
        reason: `released '${n.id}'${claim ? ` (claimed by ${describeClaimant(claim)} since ${claim.since})` : ''}; it is ${next.status}`,
        value: next,
      };
    });
    return { node, message: TaskMessages.released(node), revision };
  }
}
