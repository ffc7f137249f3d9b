import { AlreadyExistsError, NotFoundError, StorageError } from '../../../../kernel/errors';
import type { PgDatabase, SqlRunner } from '../../../../kernel/postgres/pg-database';
import { projectIdFromName } from '../../../../kernel/project-id';
import type { CreateOptions, ImportOptions, NewPlanChange, TaskGraphChange, TaskGraphStore } from '../../application/ports/task-graph-store';
import type { PlanChange, TaskGraph, TaskTransition } from '../../domain/task-graph';

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

  async create(graph: TaskGraph, opts: CreateOptions = {}): Promise<number> {
    return this.db.transaction(async (tx) => {
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
      if (opts.history) await this.insertHistory(tx, graph.project_id, revision, [opts.history]);
      await this.notify(tx, graph.project_id);
      return revision;
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
        if (result.history?.length) await this.insertHistory(tx, projectId, next.revision, result.history);
        await this.notify(tx, projectId);
      }
      return result.value;
    });
  }

  async readHistory(projectId: string, opts: { nodes?: readonly string[]; limit?: number } = {}): Promise<PlanChange[]> {
    const params: unknown[] = [projectId];
    let where = 'project_id = $1';
    if (opts.nodes) {
      params.push([...opts.nodes]);
      where += ` AND nodes && $${params.length}::text[]`;
    }
    let sql = `SELECT entry FROM wg_task_history WHERE ${where} ORDER BY seq`;
    if (opts.limit !== undefined) {
      params.push(opts.limit);
      sql = `SELECT entry FROM (SELECT entry, seq FROM wg_task_history WHERE ${where} ORDER BY seq DESC LIMIT $${params.length}) h ORDER BY seq`;
    }
    return (await this.db.query<{ entry: PlanChange }>(sql, params)).map((r) => r.entry);
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

  async importProject(graph: TaskGraph, transitions: readonly TaskTransition[], opts: ImportOptions = {}): Promise<'imported' | 'unchanged' | 'skipped'> {
    return this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`workgraph.tasks.${graph.project_id}`]);
      const rows = await tx.query<{ graph: TaskGraph; revision: number }>('SELECT graph, revision FROM wg_task_graphs WHERE project_id = $1 FOR UPDATE', [graph.project_id]);
      const existing = rows.length ? this.decode(graph.project_id, rows[0]) : undefined;
      if (existing && existing.revision === graph.revision && existing.updated_at === graph.updated_at) return 'unchanged';
      if (existing && !opts.replace) return 'skipped';
      await tx.query('DELETE FROM wg_task_transitions WHERE project_id = $1', [graph.project_id]);
      await tx.query('DELETE FROM wg_task_history WHERE project_id = $1', [graph.project_id]);
      for (const h of opts.history ?? []) await this.insertHistory(tx, graph.project_id, h.revision, [h]);
      await tx.query(
        `INSERT INTO wg_task_graphs (project_id, graph, revision, updated_at) VALUES ($1, $2, $3, now())
         ON CONFLICT (project_id) DO UPDATE SET graph = EXCLUDED.graph, revision = EXCLUDED.revision, updated_at = now()`,
        [graph.project_id, JSON.stringify(graph), graph.revision],
      );
      await this.insertTransitions(tx, graph.project_id, transitions);
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

  /**
   * One INSERT of any number of transitions: seven array parameters unnested into rows (a VALUES list with seven
   * parameters per row passed PostgreSQL's 65,535 bind-parameter limit at 9,363 rows: a 10,000-task graph failed).
   */
  private async insertTransitions(tx: SqlRunner, projectId: string, transitions: readonly TaskTransition[]): Promise<void> {
    if (!transitions.length) return;
    await tx.query(
      `INSERT INTO wg_task_transitions (project_id, node, from_status, to_status, time, attempt, record)
       SELECT $1, t.node, t.from_status, t.to_status, t.time, t.attempt, t.record::json
       FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[]) WITH ORDINALITY
         AS t(node, from_status, to_status, time, attempt, record, ord)
       ORDER BY t.ord`,
      [
        projectId,
        transitions.map((t) => t.node),
        transitions.map((t) => t.from),
        transitions.map((t) => t.to),
        transitions.map((t) => t.time),
        transitions.map((t) => t.attempt),
        transitions.map((t) => (t.record ? JSON.stringify(t.record) : null)),
      ],
    );
  }

  private async insertHistory(tx: SqlRunner, projectId: string, revision: number, entries: readonly NewPlanChange[]): Promise<void> {
    for (const e of entries) {
      const entry: PlanChange = { revision, time: e.time, actor: e.actor, action: e.action, reason: e.reason, nodes: e.nodes };
      await tx.query('INSERT INTO wg_task_history (project_id, revision, nodes, entry) VALUES ($1, $2, $3, $4)', [projectId, revision, e.nodes, JSON.stringify(entry)]);
    }
  }

  private async notify(tx: SqlRunner, projectId: string): Promise<void> {
    await tx.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, JSON.stringify({ kind: 'tasks', project: projectId, id: projectId, at: new Date().toISOString() })]);
  }
}
