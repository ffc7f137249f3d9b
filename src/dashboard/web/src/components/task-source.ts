/**
 * Where the task DAG's details panel gets what the graph does not hold (a task's transitions and history) and which
 * actions it offers: the dashboard reads its JSON API (read-only unless `--allow-actions`); an MCP Apps view calls
 * the server's tools through the host (src/dashboard/web/src/views/task-dag.tsx). The DAG components take it from
 * this context, so both draw the same DAG with the same components.
 */
import { createContext, useContext } from 'react';
import { api, useApi, type Loaded } from '../api';
import type { PlanChange, TaskNode, TaskTransition } from '../types';

export interface TaskDetailData {
  node: TaskNode;
  transitions: TaskTransition[];
  dependents: string[];
  history?: PlanChange[];
}

/** An action on one task (`agent`: the claim's agent, for release): resolves when done, rejects with a one-line error. */
export type TaskAction = (project: string, nodeId: string, agent?: string) => Promise<unknown>;

export interface TaskSource {
  /** The details of a task, read again when the project's revision changes (a hook: call it unconditionally). */
  useDetails(project: string, nodeId: string, revision: number): Loaded<TaskDetailData>;
  /** `reset_task_node`: offered only where actions are allowed. */
  reset?: TaskAction;
  /** `release_task`: offered for a claimed task only where actions are allowed. */
  release?: TaskAction;
}

const taskPath = (project: string, nodeId: string) => `/projects/${encodeURIComponent(project)}/tasks/${encodeURIComponent(nodeId)}`;

/** The dashboard's source: its JSON API; reset only with `--allow-actions` (the dashboard has no release). */
export function dashboardTaskSource(allowActions: boolean): TaskSource {
  return {
    useDetails: (project, nodeId, revision) => useApi<TaskDetailData>(`${taskPath(project, nodeId)}?r=${revision}`),
    ...(allowActions ? { reset: (project: string, nodeId: string) => api(`${taskPath(project, nodeId)}/reset`, { method: 'POST', body: {} }) } : {}),
  };
}

export const TaskSourceContext = createContext<TaskSource | undefined>(undefined);

/** The source of the DAG being drawn. */
export function useTaskSource(): TaskSource {
  const source = useContext(TaskSourceContext);
  if (!source) throw new Error('no TaskSourceContext around the task DAG');
  return source;
}
