import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../kernel/call-context';
import { reachOf } from '../../../../kernel/reach';
import { TasksTokens } from '../tasks.tokens';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { UseCase } from '../../../../kernel/use-case';
import { loadProjectGraph, projectGraphView, type ProjectGraphView } from '../services/task-graph-views';
import type { ToolInput, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { getProjectGraphSchemas } from '../tasks.tool-schemas';

/** The tool's input, as its schema in tasks.tool-schemas.ts describes it. */
export type GetProjectGraphInput = ToolInput<typeof getProjectGraphSchemas>;

/** `get_project_graph`: every node, the counts per status and a Mermaid flowchart styled by status. */
@injectable()
export class GetProjectGraph implements UseCase<GetProjectGraphInput, ToolOutput<typeof getProjectGraphSchemas>> {
  constructor(@inject(TasksTokens.TaskGraphStore) private readonly store: TaskGraphStore) {}

  async execute(input: GetProjectGraphInput, ctx?: CallContext): Promise<ProjectGraphView> {
    const { graph } = await loadProjectGraph(this.store, input.project, reachOf(ctx));
    return projectGraphView(graph);
  }
}
