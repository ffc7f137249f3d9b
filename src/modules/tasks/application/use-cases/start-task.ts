import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import { applyTaskEvent } from '../../domain';
import { Tokens } from '../../../../kernel/tokens';
import { TasksTokens } from '../tasks.tokens';
import type { Clock } from '../../../../kernel/clock';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import { TaskMessages } from '../services/task-messages';
import { timeOf, requireInReach } from '../services/task-graph-views';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { startTaskSchemas } from '../tasks.tool-schemas';

/** The tool's input, as its schema in tasks.tool-schemas.ts describes it. */
export type StartTaskInput = ToolInput<typeof startTaskSchemas>;

/** The tool's answer, as its output schema describes it (the node is `taskNode`). */
export type StartTaskOutput = ToolOutput<typeof startTaskSchemas>;

/**
 * `start_task`: READY or RETRYING → IN_PROGRESS, as a compare-and-swap under the project lock, so of two processes
 * racing on one node exactly one wins and the other gets an InvalidTransitionError saying the node is IN_PROGRESS.
 */
@injectable()
export class StartTask implements UseCase<StartTaskInput, StartTaskOutput> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(Tokens.Clock) private readonly clock: Clock,
  ) {}

  async execute(input: StartTaskInput, ctx?: CallContext): Promise<StartTaskOutput> {
    const projectId = this.store.projectIdOf(input.project);
    const reach = reachOf(ctx);
    const node = await this.store.update(projectId, (graph) => {
      requireInReach(graph, input.project, reach);
      const r = applyTaskEvent(graph, input.nodeId, { type: 'start' }, timeOf(this.clock.now()));
      return { graph: r.graph, transitions: r.transitions, value: r.node };
    });
    return { node, message: TaskMessages.started(node) };
  }
}
