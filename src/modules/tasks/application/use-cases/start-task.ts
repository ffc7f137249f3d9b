import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import { applyTaskEvent, claimFor, requireClaimant, setClaim } from '../../domain';
import { TasksTokens } from '../tasks.tokens';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import { TaskMessages } from '../services/task-messages';
import type { PlanChanges } from '../services/plan-changes';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { startTaskSchemas } from '../tasks.tool-schemas';

/** The tool's input, as its schema in tasks.tool-schemas.ts describes it. */
export type StartTaskInput = ToolInput<typeof startTaskSchemas>;

/** The tool's answer, as its output schema describes it (the node is `taskNode`). */
export type StartTaskOutput = ToolOutput<typeof startTaskSchemas>;

/**
 * `start_task`: READY or RETRYING → IN_PROGRESS, claimed by the caller, as a compare-and-swap under the project lock,
 * so of two processes racing on one node exactly one wins and the other gets an InvalidTransitionError saying the
 * node is IN_PROGRESS. A RETRYING task another agent still claims is refused (`claimed`).
 */
@injectable()
export class StartTask implements UseCase<StartTaskInput, StartTaskOutput> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(TasksTokens.PlanChanges) private readonly plan: PlanChanges,
  ) {}

  async execute(input: StartTaskInput, ctx?: CallContext): Promise<StartTaskOutput> {
    const projectId = this.store.projectIdOf(input.project);
    const who = this.plan.claimant(ctx, input.agent);
    const { value: node, revision } = await this.plan.change(projectId, { who, action: 'start_task', project: input.project, reach: reachOf(ctx) }, (graph, at) => {
      const before = graph.nodes.find((n) => n.id === input.nodeId);
      if (before) requireClaimant(before, who, at.ms, 'start_task');
      const r = applyTaskEvent(graph, input.nodeId, { type: 'start' }, at);
      const claimed = setClaim(r.graph, input.nodeId, claimFor(who, at.ms, this.plan.claimTtlMs, before?.claim));
      const started = claimed.nodes.find((n) => n.id === input.nodeId)!;
      return { graph: claimed, transitions: r.transitions, nodes: [input.nodeId], reason: `started '${input.nodeId}' (attempt ${started.current_attempt + 1})`, value: started };
    });
    return { node, message: TaskMessages.claimed(node), revision };
  }
}
