import { checkGraphDefinition } from './graph-checks';
import {
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_TIMEOUT_MS,
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
 * defaults (max_attempts 3, timeout_ms 10 minutes, depends_on []), and sets each node READY when it has no
 * dependencies, else PENDING.
 */
export function createTaskGraph(input: NewTaskGraph): TaskGraph {
  checkGraphDefinition(input.nodes);
  const nodes: TaskNode[] = input.nodes.map((d) => {
    const node: TaskNode = {
      id: d.id,
      title: d.title,
      depends_on: [...new Set(d.depends_on ?? [])],
      max_attempts: d.max_attempts ?? DEFAULT_MAX_ATTEMPTS,
      timeout_ms: d.timeout_ms ?? DEFAULT_TIMEOUT_MS,
      status: (d.depends_on ?? []).length === 0 ? TaskStatus.Ready : TaskStatus.Pending,
      current_attempt: 0,
      error_logs: [],
      updated_at: input.now,
    };
    if (d.description !== undefined) node.description = d.description;
    if (d.validation_command !== undefined && d.validation_command.trim() !== '') node.validation_command = d.validation_command;
    if (d.output_tail_bytes !== undefined) node.output_tail_bytes = d.output_tail_bytes;
    return node;
  });
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
