import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import { TasksTokens } from '../tasks.tokens';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import { loadProjectGraph, projectGraphView, RECENT_HISTORY, type ProjectGraphView } from '../services/task-graph-views';
import type { PlanChanges } from '../services/plan-changes';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { getProjectGraphSchemas } from '../tasks.tool-schemas';

/** The tool's input, as its schema in tasks.tool-schemas.ts describes it. */
export type GetProjectGraphInput = ToolInput<typeof getProjectGraphSchemas>;

/**
 * `get_project_graph`: every node, the counts per status, a Mermaid flowchart styled by status, the revision and the
 * recent history of changes. Lapsed claims are put back first (and logged).
 */
@injectable()
export class GetProjectGraph implements UseCase<GetProjectGraphInput, ToolOutput<typeof getProjectGraphSchemas>> {
  constructor(
    @inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore,
    @inject(TasksTokens.PlanChanges) private readonly plan: PlanChanges,
  ) {}

  async execute(input: GetProjectGraphInput, ctx?: CallContext): Promise<ProjectGraphView> {
    const loaded = await loadProjectGraph(this.store, input.project, reachOf(ctx));
    const graph = await this.plan.settled(loaded.projectId, loaded.graph, ctx);
    return projectGraphView(graph, await this.store.readHistory(loaded.projectId, { limit: RECENT_HISTORY }));
  }
}
