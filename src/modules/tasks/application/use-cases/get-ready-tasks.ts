import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import { rankReadyTasks, type TaskMetadataValue } from '../../domain';
import { TasksTokens } from '../tasks.tokens';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import { loadProjectGraph } from '../services/task-graph-views';
import type { PlanChanges } from '../services/plan-changes';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { getReadyTasksSchemas } from '../tasks.tool-schemas';

/** The tool's input, as its schema in tasks.tool-schemas.ts describes it. */
export type GetReadyTasksInput = ToolInput<typeof getReadyTasksSchemas>;

/** The tool's answer, as its output schema describes it. */
export type GetReadyTasksOutput = ToolOutput<typeof getReadyTasksSchemas>;

/**
 * `get_ready_tasks`: the READY and RETRYING nodes of a project (both accept `start_task`), by priority, then by how
 * many tasks each unblocks, then graph order; narrowed by tags and metadata. Lapsed claims are put back first.
 */
@injectable()
export class GetReadyTasks implements UseCase<GetReadyTasksInput, GetReadyTasksOutput> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(TasksTokens.PlanChanges) private readonly plan: PlanChanges,
  ) {}

  async execute(input: GetReadyTasksInput, ctx?: CallContext): Promise<GetReadyTasksOutput> {
    const loaded = await loadProjectGraph(this.store, input.project, reachOf(ctx));
    const graph = await this.plan.settled(loaded.projectId, loaded.graph, ctx);
    const filter = { tags: input.tags, metadata: input.metadata as Record<string, TaskMetadataValue> | undefined };
    const ready = rankReadyTasks(graph, { filter }).map(({ node: n, unblocks }) => {
      const item: GetReadyTasksOutput['ready_tasks'][number] = { id: n.id, title: n.title, status: n.status, priority: n.priority ?? 'medium', unblocks };
      if (n.tags) item.tags = n.tags;
      if (n.metadata) item.metadata = n.metadata;
      if (n.claim) item.claim = n.claim;
      return item;
    });
    return { ready_count: ready.length, ready_tasks: ready, revision: graph.revision };
  }
}
