import { checkGraphDefinition } from './graph-checks';
import { checkDefinitionFields, nodeFromDefinition } from './node-definition';
import {
  TASK_GRAPH_FORMAT,
  type TaskGraph,
  type TaskNode,
  type TaskNodeDefinition,
} from './task-graph';
import { TaskStatus } from './task-status';

export interface NewTaskGraph {
  projectId: string;
  projectName: string;
  /** Already resolved and checked by the caller (PathPolicy). */
  projectRoot: string;
  nodes: readonly TaskNodeDefinition[];
  /** ISO time. */
  now: string;
}

/**
 * Builds a new project graph from the agent's definition: checks it ({@link checkGraphDefinition}), applies the
 * defaults (max_attempts 3, timeout_ms 10 minutes, priority medium, depends_on []), and sets each node READY when it has no
 * dependencies, else PENDING.
 */
export function createTaskGraph(input: NewTaskGraph): TaskGraph {
  checkGraphDefinition(input.nodes);
  checkDefinitionFields(input.nodes);
  const nodes: TaskNode[] = input.nodes.map((d) =>
    nodeFromDefinition(d, (d.depends_on ?? []).length === 0 ? TaskStatus.Ready : TaskStatus.Pending, input.now),
  );
  return {
    schema_version: TASK_GRAPH_FORMAT,
    project_id: input.projectId,
    project_name: input.projectName,
    project_root: input.projectRoot,
    created_at: input.now,
    updated_at: input.now,
    revision: 0,
    nodes,
  };
}
