import { NotFoundError } from '../../../../kernel/errors';
import { reachOf, type Reach } from '../../../../kernel/reach';
import { countByStatus, findNode, renderMermaid, type PlanChange, type TaskGraph, type TaskNode } from '../../domain';
import type { TaskGraphStore } from '../ports/task-graph-store';
import type { ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { getProjectGraphSchemas } from '../tasks.tool-schemas';

/**
 * What init_project_graph and get_project_graph answer, as their one output schema (`projectGraph` in
 * tasks.tool-schemas.ts) describes it: the nodes, the count per status and a Mermaid `flowchart` of the DAG.
 */
export type ProjectGraphView = ToolOutput<typeof getProjectGraphSchemas>;

/** How many recent changes get_project_graph shows. */
export const RECENT_HISTORY = 20;

export function projectGraphView(graph: TaskGraph, history: PlanChange[]): ProjectGraphView {
  return {
    project_id: graph.project_id,
    project_name: graph.project_name,
    project_root: graph.project_root,
    revision: graph.revision,
    nodes: graph.nodes,
    counts: countByStatus(graph),
    mermaid: renderMermaid(graph),
    history,
  };
}

/**
 * Loads a project's graph by name or id, if it lies within the caller's reach (under its roots).
 * @throws NotFoundError naming the project when it has no graph or lies outside the reach (the same answer).
 */
export async function loadProjectGraph(store: TaskGraphStore, project: string, reach: Reach = reachOf(undefined)): Promise<{ projectId: string; graph: TaskGraph }> {
  const projectId = store.projectIdOf(project);
  const graph = await store.load(projectId);
  if (!graph || !reach.covers(graph.project_root)) throw projectNotFound(project, projectId);
  return { projectId, graph };
}

/** The answer for a project that has no graph — and for one outside the caller's reach, so its existence is not confirmed. */
export function projectNotFound(project: string, projectId: string): NotFoundError {
  return new NotFoundError('project', project, `project '${project}' (id '${projectId}') has no task graph; call init_project_graph first`);
}

/** Inside a store update: the graph must be within the caller's reach. @throws NotFoundError as for a missing project. */
export function requireInReach(graph: TaskGraph, project: string, reach: Reach): void {
  if (!reach.covers(graph.project_root)) throw projectNotFound(project, graph.project_id);
}

/** A node of a loaded graph. @throws NotFoundError naming node and project. */
export function requireNode(graph: TaskGraph, nodeId: string): TaskNode {
  const node = findNode(graph, nodeId);
  if (!node) throw new NotFoundError('task', nodeId, `task '${nodeId}' not found in project '${graph.project_id}'`);
  return node;
}

/** The ISO and millisecond forms of a clock reading. */
export function timeOf(ms: number): { iso: string; ms: number } {
  return { iso: new Date(ms).toISOString(), ms };
}

/**
 * A node as a validation answer shows it: only the record of `attempt` in error_logs (earlier ones are in
 * get_project_graph) and no `last_run` (the answer's `result` is that run).
 */
export function answerNode(node: TaskNode, attempt: number): TaskNode {
  const { last_run: _lastRun, ...rest } = node;
  return { ...rest, error_logs: node.error_logs.filter((e) => e.attempt === attempt) };
}
