import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import { startableNodes, type TaskStatus } from '../../domain';
import { TasksTokens } from '../tasks.tokens';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import { loadProjectGraph } from '../services/task-graph-views';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { getReadyTasksSchemas } from '../tasks.tool-schemas';

/** The tool's input, as its schema in tasks.tool-schemas.ts describes it. */
export type GetReadyTasksInput = ToolInput<typeof getReadyTasksSchemas>;

/** The tool's answer, as its output schema describes it. */
export type GetReadyTasksOutput = ToolOutput<typeof getReadyTasksSchemas>;

/** `get_ready_tasks`: the READY and RETRYING nodes of a project (both accept `start_task`), in graph order. */
@injectable()
export class GetReadyTasks implements UseCase<GetReadyTasksInput, GetReadyTasksOutput> {
  constructor(@inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore) {}

  async execute(input: GetReadyTasksInput, ctx?: CallContext): Promise<GetReadyTasksOutput> {
    const { graph } = await loadProjectGraph(this.store, input.project, reachOf(ctx));
    const ready = startableNodes(graph).map((n) => ({ id: n.id, title: n.title, status: n.status }));
    return { ready_count: ready.length, ready_tasks: ready };
  }
}
