import { AlreadyExistsError, NotFoundError, StorageError } from '../../../../kernel/errors';
import type { PgDatabase, SqlRunner } from '../../../../kernel/postgres/pg-database';
import { projectIdFromName } from '../../../../kernel/project-id';
import type { TaskGraphChange, TaskGraphStore } from '../../application/ports/task-graph-store';
import type { TaskGraph, TaskTransition } from '../../domain/task-graph';

import { CHANGE_CHANNEL } from '../../../../kernel/postgres/pg-change-bridge';

/**
 * Task graphs in PostgreSQL: one row per project (the graph as `json`, its revision) and the transition log as rows.
 * A change is a compare-and-swap inside one transaction holding the project's row lock (`SELECT … FOR UPDATE`): two
 * processes on any hosts racing on one task get one winner and one clear error, exactly as with the file store's lock.
 * Each committed change notifies `workgraph_changes` with `{kind: "tasks", project}`.
 */
export class PgTaskGraphStore implements TaskGraphStore {
  constructor(private readonly db: PgDatabase) {}

  projectIdOf(nameOrId: string): string {
    return projectIdFromName(nameOrId, 'project');
  }

  async load(projectId: string): Promise<TaskGraph | undefined> {
    const rows = await this.db.query<{ graph: TaskGraph; revision: number }>('SELECT graph, revision FROM wg_task_graphs WHERE project_id = $1', [projectId]);
    return rows.length ? this.decode(projectId, rows[0]) : undefined;
  }

  async create(graph: TaskGraph, opts: { replace?: boolean; check?: (existing: TaskGraph) => void } = {}): Promise<void> {
    await this.db.transaction(async (tx) => {
      // Serializes creators of the same new project (there is no row to lock yet).
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`workgraph.tasks.${graph.project_id}`]);
      const rows = await tx.query<{ graph: TaskGraph; revision: number }>('SELECT graph, revision FROM wg_task_graphs WHERE project_id = $1 FOR UPDATE', [graph.project_id]);
      const existing = rows.length ? this.decode(graph.project_id, rows[0]) : undefined;
      if (existing) {
        if (!opts.replace) throw new AlreadyExistsError('project', graph.project_id, 'pass replace: true to replace its task graph');
        opts.check?.(existing);
      }
      const revision = existing ? existing.revision + 1 : 0;
      await tx.query(
        `INSERT INTO wg_task_graphs (project_id, graph, revision, updated_at) VALUES ($1, $2, $3, now())
         ON CONFLICT (project_id) DO UPDATE SET graph = EXCLUDED.graph, revision = EXCLUDED.revision, updated_at = now()`,
        [graph.project_id, JSON.stringify({ ...graph, revision }), revision],
      );
      await this.insertTransitions(
        tx,
        graph.project_id,
        graph.nodes.map((n) => ({ node: n.id, from: n.status, to: n.status, time: graph.created_at, attempt: 0 })),
      );
      await this.notify(tx, graph.project_id);
    });
  }

  async update<T>(projectId: string, change: (current: TaskGraph) => TaskGraphChange<T>): Promise<T> {
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<{ graph: TaskGraph; revision: number }>('SELECT graph, revision FROM wg_task_graphs WHERE project_id = $1 FOR UPDATE', [projectId]);
      if (!rows.length) throw new NotFoundError('project', projectId, `project '${projectId}' has no task graph; call init_project_graph first`);
      const current = this.decode(projectId, rows[0]);
      const result = change(current);
      if (result.graph) {
        const next: TaskGraph = { ...result.graph, revision: current.revision + 1 };
        await tx.query('UPDATE wg_task_graphs SET graph = $2, revision = $3, updated_at = now() WHERE project_id = $1', [projectId, JSON.stringify(next), next.revision]);
        if (result.transitions?.length) await this.insertTransitions(tx, projectId, result.transitions);
        await this.notify(tx, projectId);
      }
      return result.value;
    });
  }

  async readTransitions(projectId: string): Promise<TaskTransition[]> {
    const rows = await this.db.query<{ node: string; from_status: string; to_status: string; time: string; attempt: number; record: TaskTransition['record'] | null }>(
      'SELECT node, from_status, to_status, time, attempt, record FROM wg_task_transitions WHERE project_id = $1 ORDER BY seq',
      [projectId],
    );
    return rows.map((r) => {
      const t = { from: r.from_status, to: r.to_status, node: r.node, time: r.time, attempt: r.attempt } as TaskTransition;
      if (r.record) t.record = r.record;
      return t;
    });
  }

  async importProject(graph: TaskGraph, transitions: readonly TaskTransition[], opts: { replace?: boolean } = {}): Promise<'imported' | 'unchanged' | 'skipped'> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`workgraph.tasks.${graph.project_id}`]);
      const rows = await tx.query<{ graph: TaskGraph; revision: number }>('SELECT graph, revision FROM wg_task_graphs WHERE project_id = $1 FOR UPDATE', [graph.project_id]);
      const existing = rows.length ? this.decode(graph.project_id, rows[0]) : undefined;
      if (existing && existing.revision === graph.revision && existing.updated_at === graph.updated_at) return 'unchanged';
      if (existing && !opts.replace) return 'skipped';
      await tx.query('DELETE FROM wg_task_transitions WHERE project_id = $1', [graph.project_id]);
      await tx.query(
        `INSERT INTO wg_task_graphs (project_id, graph, revision, updated_at) VALUES ($1, $2, $3, now())
         ON CONFLICT (project_id) DO UPDATE SET graph = EXCLUDED.graph, revision = EXCLUDED.revision, updated_at = now()`,
        [graph.project_id, JSON.stringify(graph), graph.revision],
      );
      for (let i = 0; i < transitions.length; i += 1000) await this.insertTransitions(tx, graph.project_id, transitions.slice(i, i + 1000));
      await this.notify(tx, graph.project_id);
      return 'imported';
    });
  }

  /** Every project id with a task graph (for listings, export and the dashboard). */
  async listProjects(): Promise<string[]> {
    return (await this.db.query<{ project_id: string }>('SELECT project_id FROM wg_task_graphs ORDER BY project_id')).map((r) => r.project_id);
  }

  private decode(projectId: string, row: { graph: TaskGraph; revision: number }): TaskGraph {
    const graph = row.graph;
    if (!graph || !Array.isArray(graph.nodes)) throw new StorageError(`task graph of project '${projectId}' in the database is not a valid task graph`, { project: projectId });
    return { ...graph, revision: row.revision };
  }

  private async insertTransitions(tx: SqlRunner, projectId: string, transitions: readonly TaskTransition[]): Promise<void> {
    if (!transitions.length) return;
    const values: unknown[] = [];
    const rows = transitions.map((t, i) => {
      values.push(projectId, t.node, t.from, t.to, t.time, t.attempt, t.record ? JSON.stringify(t.record) : null);
      const b = i * 7;
      return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}, $${b + 7})`;
    });
    await tx.query(`INSERT INTO wg_task_transitions (project_id, node, from_status, to_status, time, attempt, record) VALUES ${rows.join(', ')}`, values);
  }

  private async notify(tx: SqlRunner, projectId: string): Promise<void> {
    await tx.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, JSON.stringify({ kind: 'tasks', project: projectId, id: projectId, at: new Date().toISOString() })]);
  }
}
