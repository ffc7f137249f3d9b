import type { Actor } from '../../../../kernel/identity';
import type { PlanChange, TaskGraph, TaskTransition } from '../../domain/task-graph';

/** A history entry as a change hands it to the store, which stamps the revision it writes. */
export type NewPlanChange = Omit<PlanChange, 'revision'>;

/** What an update function decides: the new graph to write (or none) and the value handed back to the caller. */
export interface TaskGraphChange<T> {
  /** The graph to write; omit to write nothing (the update then appends no transitions either). */
  graph?: TaskGraph;
  /** Status changes to append to the transition log, in order. */
  transitions?: readonly TaskTransition[];
  /** Entries for the project's history, written in the same commit as the graph (all or nothing). */
  history?: readonly NewPlanChange[];
  value: T;
}

/**
 * Where project task graphs live. Every change is a compare-and-swap under the project's cross-process lock: the
 * store re-reads the graph inside the lock, hands it to `update`'s function (which checks the expected status and
 * throws to refuse), writes the result atomically, then appends the transitions to the log — so two processes
 * racing on one task get one winner and one clear error.
 */
export interface TaskGraphStore {
  /**
   * The project id of a name or an id: the path-safe slug (`My App` → `my-app`; an id maps to itself).
   * @throws InvalidArgumentsError when nothing usable remains.
   */
  projectIdOf(nameOrId: string): string;
  /** The stored graph, or undefined when the project has none. @throws StorageError on an unreadable file. */
  load(projectId: string): Promise<TaskGraph | undefined>;
  /**
   * Stores a new graph under the lock.
   * @param opts.replace when false (default) an existing graph is refused.
   * @param opts.check called under the lock with the existing graph (when there is one) before it is replaced; throws
   *   to refuse (e.g. while a command runs).
   * @param opts.history the history entry of the creation (a replace keeps the old history and adds it).
   * @returns the revision written (0 for a new project, the old one + 1 for a replace).
   * @throws AlreadyExistsError when the project exists and `replace` is false.
   */
  create(graph: TaskGraph, opts?: CreateOptions): Promise<number>;
  /**
   * Compare-and-swap: under the lock, re-reads the graph, calls `change` with it, writes the new graph atomically
   * (revision + 1) and appends its transitions to the log.
   * @throws NotFoundError when the project has no graph; whatever `change` throws; LockError / StorageError.
   */
  update<T>(projectId: string, change: (current: TaskGraph) => TaskGraphChange<T>): Promise<T>;
  /**
   * The project's history of changes, oldest first: the latest `limit` entries (all when absent), only those naming
   * one of `nodes` when given.
   */
  readHistory(projectId: string, opts?: { nodes?: readonly string[]; limit?: number }): Promise<PlanChange[]>;
  /** The transition log of a project, oldest first (empty when none); only the transitions of `nodes` when given. */
  readTransitions(projectId: string, opts?: TransitionQuery): Promise<TaskTransition[]>;
  /** Every project id that has a task graph, sorted. */
  listProjects(): Promise<string[]>;
  /**
   * Copies a project in from another store exactly as it is (graph with its revision and times, the whole transition
   * log), for `workgraph db import/export`. An existing project with the same revision and `updated_at` is left as it
   * is (`unchanged`: importing twice copies nothing); a different one is kept unless `replace` (`skipped`).
   */
  importProject(graph: TaskGraph, transitions: readonly TaskTransition[], opts?: ImportOptions): Promise<'imported' | 'unchanged' | 'skipped'>;
}

export interface CreateOptions {
  replace?: boolean;
  check?: (existing: TaskGraph) => void;
  history?: NewPlanChange;
  /** Who created it: kept on each task's first transition. */
  actor?: Actor;
}

export interface TransitionQuery {
  /** Only the transitions of these tasks. */
  nodes?: readonly string[];
}

export interface ImportOptions {
  replace?: boolean;
  /** The project's history of changes, copied with it. */
  history?: readonly PlanChange[];
}
