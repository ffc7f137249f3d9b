import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import { CHANGE_CHANNEL } from '../../../../kernel/postgres/pg-change-bridge';
import type { NewPlanChange } from '../../application/ports/task-graph-store';
import type { PlanChange, TaskGraph, TaskTransition } from '../../domain/task-graph';
import { wholeGraphRows, type TaskRow } from './task-rows';

/*
 * The statements that write a project's task graph in PostgreSQL, each inside the caller's transaction (which holds
 * the project row's lock): the project row, the task rows, the transitions, the history, and the change notification.
 */

/** Writes the project row of `graph` (inserted or overwritten) and returns the write's sequence number. */
export async function writeProjectRow(tx: SqlRunner, graph: TaskGraph): Promise<number> {
  const rows = await tx.query<{ write_seq: string }>(
    `INSERT INTO wg_task_projects (project_id, schema_version, project_name, project_root, created_at, graph_updated_at, revision, node_count, write_seq, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, nextval('wg_task_write_seq'), now())
     ON CONFLICT (project_id) DO UPDATE SET schema_version = EXCLUDED.schema_version, project_name = EXCLUDED.project_name,
       project_root = EXCLUDED.project_root, created_at = EXCLUDED.created_at, graph_updated_at = EXCLUDED.graph_updated_at,
       revision = EXCLUDED.revision, node_count = EXCLUDED.node_count, write_seq = EXCLUDED.write_seq, updated_at = now()
     RETURNING write_seq`,
    [graph.project_id, graph.schema_version, graph.project_name, graph.project_root, graph.created_at, graph.updated_at, graph.revision, graph.nodes.length],
  );
  return Number(rows[0].write_seq);
}

/** A graph written whole (create, replace, import): its project row and every task row, the old ones gone. */
export async function writeWholeGraph(tx: SqlRunner, graph: TaskGraph): Promise<number> {
  const seq = await writeProjectRow(tx, graph);
  await tx.query('DELETE FROM wg_tasks WHERE project_id = $1', [graph.project_id]);
  await writeTaskRows(tx, graph.project_id, seq, wholeGraphRows(graph.nodes));
  return seq;
}

/** One statement for any number of task rows (arrays unnested: no bind-parameter limit), inserted or overwritten. */
export async function writeTaskRows(tx: SqlRunner, projectId: string, seq: number, rows: readonly TaskRow[]): Promise<void> {
  if (!rows.length) return;
  await tx.query(
    `INSERT INTO wg_tasks (project_id, node_id, position, write_seq, node)
     SELECT $1, r.node_id, r.position, $2, r.node::json FROM unnest($3::text[], $4::float8[], $5::text[]) AS r(node_id, position, node)
     ON CONFLICT (project_id, node_id) DO UPDATE SET position = EXCLUDED.position, write_seq = EXCLUDED.write_seq, node = EXCLUDED.node`,
    [projectId, seq, rows.map((r) => r.node.id), rows.map((r) => r.position), rows.map((r) => JSON.stringify(r.node))],
  );
}

/**
 * One INSERT of any number of transitions: array parameters unnested into rows (a VALUES list with seven
 * parameters per row passed PostgreSQL's 65,535 bind-parameter limit at 9,363 rows: a 10,000-task graph failed).
 */
export async function insertTransitions(tx: SqlRunner, projectId: string, transitions: readonly TaskTransition[]): Promise<void> {
  if (!transitions.length) return;
  await tx.query(
    `INSERT INTO wg_task_transitions (project_id, node, from_status, to_status, time, attempt, record, actor)
     SELECT $1, t.node, t.from_status, t.to_status, t.time, t.attempt, t.record::json, t.actor::json
     FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[], $8::text[]) WITH ORDINALITY
       AS t(node, from_status, to_status, time, attempt, record, actor, ord)
     ORDER BY t.ord`,
    [
      projectId,
      transitions.map((t) => t.node),
      transitions.map((t) => t.from),
      transitions.map((t) => t.to),
      transitions.map((t) => t.time),
      transitions.map((t) => t.attempt),
      transitions.map((t) => (t.record ? JSON.stringify(t.record) : null)),
      transitions.map((t) => (t.actor ? JSON.stringify(t.actor) : null)),
    ],
  );
}

/** The history entries of one revision, a row each. */
export async function insertHistory(tx: SqlRunner, projectId: string, revision: number, entries: readonly NewPlanChange[]): Promise<void> {
  for (const e of entries) {
    const entry: PlanChange = { revision, time: e.time, actor: e.actor, action: e.action, reason: e.reason, nodes: e.nodes };
    await tx.query('INSERT INTO wg_task_history (project_id, revision, nodes, entry) VALUES ($1, $2, $3, $4)', [projectId, revision, e.nodes, JSON.stringify(entry)]);
  }
}

/** Tells every listening server (LISTEN `workgraph_changes`) that the project's tasks changed, at commit. */
export async function notifyChange(tx: SqlRunner, projectId: string): Promise<void> {
  await tx.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, JSON.stringify({ kind: 'tasks', project: projectId, id: projectId, at: new Date().toISOString() })]);
}
