import { inject, injectable } from 'tsyringe';
import {
  applyTaskEvent,
  claimFor,
  describeClaimant,
  liveClaim,
  rankReadyTasks,
  setClaim,
  TaskStatus,
  type Claimant,
  type TaskGraph,
  type TaskMetadataValue,
  type TaskNode,
} from '../../domain';
import { TasksTokens } from '../tasks.tokens';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import { TaskMessages } from '../services/task-messages';
import type { PlanChanges } from '../services/plan-changes';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { claimNextTaskSchemas } from '../tasks.tool-schemas';

export type ClaimNextTaskInput = ToolInput<typeof claimNextTaskSchemas>;
export type ClaimNextTaskOutput = ToolOutput<typeof claimNextTaskSchemas>;
type Blocked = NonNullable<ClaimNextTaskOutput['blocked']>[number];

/** How many held tasks a "nothing is ready" answer lists. */
const MAX_BLOCKED = 20;

/**
 * `claim_next_task`: in one compare-and-set, takes the first ready task (get_ready_tasks' order, tasks other agents
 * claim left out, narrowed by tags/metadata) and starts it for the caller, claimed; or answers that nothing is ready
 * and what holds the unfinished tasks (claims, dependencies). Two agents calling it at once never get the same task.
 */
@injectable()
export class ClaimNextTask implements UseCase<ClaimNextTaskInput, ClaimNextTaskOutput> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(TasksTokens.PlanChanges) private readonly plan: PlanChanges,
  ) {}

  async execute(input: ClaimNextTaskInput, ctx?: CallContext): Promise<ClaimNextTaskOutput> {
    const projectId = this.store.projectIdOf(input.project);
    const who = this.plan.claimant(ctx, input.agent);
    const filter = { tags: input.tags, metadata: input.metadata as Record<string, TaskMetadataValue> | undefined };
    const { value, revision } = await this.plan.change<{ node: TaskNode | undefined; blocked: Blocked[] }>(projectId, { who, action: 'claim_next_task', project: input.project, reach: reachOf(ctx) }, (graph, at) => {
      const first = rankReadyTasks(graph, { filter, who, nowMs: at.ms })[0];
      if (!first) return { nodes: [], reason: '', value: { node: undefined, blocked: blockedTasks(graph, at.ms) } };
      const r = applyTaskEvent(graph, first.node.id, { type: 'start' }, at);
      const claimed = setClaim(r.graph, first.node.id, claimFor(who, at.ms, this.plan.claimTtlMs, first.node.claim));
      const node = claimed.nodes.find((n) => n.id === first.node.id)!;
      return {
        graph: claimed,
        transitions: r.transitions,
        nodes: [node.id],
        reason: `claimed and started '${node.id}' (${node.priority ?? 'medium'} priority, unblocks ${first.unblocks}) for ${describeClaimant(who)}`,
        value: { node, blocked: [] },
      };
    });
    if (value.node) return { claimed: true, node: value.node, message: TaskMessages.claimed(value.node), revision };
    const graph = (await this.store.load(projectId))!;
    const completed = graph.nodes.filter((n) => n.status === TaskStatus.Completed).length;
    return {
      claimed: false,
      message: TaskMessages.nothingReady(graph.nodes.length, completed, value.blocked.length),
      blocked: value.blocked.slice(0, MAX_BLOCKED),
      revision,
    };
  }
}

/** The unfinished tasks and what holds each: a claim, a failure, or the dependencies it waits for. */
function blockedTasks(graph: TaskGraph, nowMs: number): Blocked[] {
  const status = new Map(graph.nodes.map((n) => [n.id, n.status]));
  const out: Blocked[] = [];
  for (const n of graph.nodes) {
    if (n.status === TaskStatus.Completed) continue;
    out.push(describeHold(n, status, nowMs));
  }
  return out;
}

function describeHold(n: TaskNode, status: Map<string, TaskStatus>, nowMs: number): Blocked {
  const claim = liveClaim(n, nowMs);
  if (claim) return { id: n.id, status: n.status, reason: `claimed by ${describeClaimant(claim as Claimant)} until ${claim.expires_at}`, claim };
  if (n.status === TaskStatus.Failed) return { id: n.id, status: n.status, reason: `FAILED after ${n.current_attempt} attempt(s); reset_task_node retries it` };
  if (n.status === TaskStatus.Pending) {
    const waiting = n.depends_on.filter((d) => status.get(d) !== TaskStatus.Completed);
    return { id: n.id, status: n.status, reason: `waits for ${waiting.join(', ')}`, waiting_for: waiting };
  }
  return { id: n.id, status: n.status, reason: n.status === TaskStatus.Validating ? 'its command is running' : `it is ${n.status}` };
}
