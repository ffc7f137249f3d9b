import { AlreadyExistsError, NotFoundError, StorageError } from '../../../../kernel/errors';
import type { PgDatabase, SqlRunner } from '../../../../kernel/postgres/pg-database';
import { projectIdFromName } from '../../../../kernel/project-id';
import type { CreateOptions, ImportOptions, TaskGraphChange, TaskGraphStore, TransitionQuery } from '../../application/ports/task-graph-store';
import type { PlanChange, TaskGraph, TaskNode, TaskTransition } from '../../domain/task-graph';
import { creationTransitions } from '../../domain/task-transitions';
import { RowPositions, rowChanges, wholeGraphRows, type TaskRow } from './task-rows';
import { insertHistory, insertTransitions, notifyChange, writeProjectRow, writeTaskRows, writeWholeGraph } from './task-graph-writes';

/** A project row. */
interface ProjectRow {
  project_id: string;
  schema_version: number;
  project_name: string;
  project_root: string;
  created_at: string;
  graph_updated_at: string;
  revision: number;
  node_count: number;
  /** bigint: pg hands it over as text. */
  write_seq: string;
}

interface NodeRow {
  node_id: string;
  position: number;
  node: TaskNode;
}

/** A project's graph as this process last read or wrote it, with the write that made it. */
interface HeldGraph {
  seq: number;
  graph: TaskGraph;
}

/** Projects whose graphs a process keeps in memory (the most recently used). */
const HELD_PROJECTS = 32;

/**
 * Task graphs in PostgreSQL: a row per project (`wg_task_projects`: the graph's own fields, revision, task count) and
 * a row per task (`wg_tasks`), the transition log and the history as rows. A change is a compare-and-swap inside one
 * transaction holding the project row's lock (`SELECT … FOR UPDATE`): two processes on any hosts racing on one task get
 * one winner and one clear error, exactly as with the file store's lock. It writes only the task rows the change
 * touched (and the project row), with its transitions and history, in the same commit.
 *
 * Every write stamps the rows it writes with the next value of one sequence (`write_seq`). The store keeps the graphs
 * it last saw in memory with that number, so a read or a change of a project reads the project row and only the task
 * rows written since (nothing, when no other process wrote): one query, whatever the plan's size. A task that was
 * deleted meanwhile shows as a count that does not match the project row's; then the whole graph is read again. Each
 * committed change notifies `workgraph_changes` with `{kind: "tasks", project}`.
 */
export class PgTaskGraphStore implements TaskGraphStore {
  private readonly held = new Map<string, HeldGraph>();
  private readonly positions = new RowPositions();

  constructor(private readonly db: PgDatabase) {}

  projectIdOf(nameOrId: string): string {
    return projectIdFromName(nameOrId, 'project');
  }

  async load(projectId: string): Promise<TaskGraph | undefined> {
    const held = this.held.get(projectId);
    const rows = await this.db.query<ProjectRow & Partial<NodeRow>>(
      `SELECT p.*, t.node_id, t.position, t.node FROM wg_task_projects p
       LEFT JOIN wg_tasks t ON t.project_id = p.project_id AND t.write_seq > $2
       WHERE p.project_id = $1 ORDER BY t.position`,
      [projectId, held?.seq ?? -1],
    );
    if (!rows.length) {
      this.held.delete(projectId);
      return undefined;
    }
    const nodes = rows[0].node_id == null ? [] : (rows as NodeRow[]);
    return (await this.settle(this.db, rows[0], held, nodes)).graph;
  }

  async create(graph: TaskGraph, opts: CreateOptions = {}): Promise<number> {
    const written = await this.db.transaction(async (tx) => {
      // Serializes creators of the same new project (there is no row to lock yet).
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`workgraph.tasks.${graph.project_id}`]);
      const existing = await this.lockedGraph(tx, graph.project_id);
      if (existing) {
        if (!opts.replace) throw new AlreadyExistsError('project', graph.project_id, 'pass replace: true to replace its task graph');
        opts.check?.(existing.graph);
      }
      const revision = existing ? existing.graph.revision + 1 : 0;
      const next = { ...graph, revision, nodes: [...graph.nodes] };
      const seq = await writeWholeGraph(tx, next);
      await insertTransitions(tx, graph.project_id, creationTransitions(graph, opts.actor));
      if (opts.history) await insertHistory(tx, graph.project_id, revision, [opts.history]);
      await notifyChange(tx, graph.project_id);
      return { seq, graph: next };
    });
    this.hold(graph.project_id, written, wholeGraphRows(written.graph.nodes));
    return written.graph.revision;
  }

  async update<T>(projectId: string, change: (current: TaskGraph) => TaskGraphChange<T>): Promise<T> {
    let written: { held: HeldGraph; rows: TaskRow[] } | undefined;
    const value = await this.db.transaction(async (tx) => {
      const current = await this.lockedGraph(tx, projectId);
      if (!current) throw new NotFoundError('project', projectId, `project '${projectId}' has no task graph; call init_project_graph first`);
      const result = change(current.graph);
      if (result.graph) {
        const next: TaskGraph = { ...result.graph, revision: current.graph.revision + 1 };
        const { upserts, deletes } = rowChanges(current.graph, next, this.positions);
        const seq = await writeProjectRow(tx, next);
        await writeTaskRows(tx, projectId, seq, upserts);
        if (deletes.length) await tx.query('DELETE FROM wg_tasks WHERE project_id = $1 AND node_id = ANY($2::text[])', [projectId, deletes]);
        if (result.transitions?.length) await insertTransitions(tx, projectId, result.transitions);
        if (result.history?.length) await insertHistory(tx, projectId, next.revision, result.history);
        await notifyChange(tx, projectId);
        written = { held: { seq, graph: next }, rows: upserts };
      }
      return result.value;
    });
    if (written) this.hold(projectId, written.held, written.rows);
    return value;
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

  async readTransitions(projectId: string, opts: TransitionQuery = {}): Promise<TaskTransition[]> {
    const params: unknown[] = [projectId];
    let where = 'project_id = $1';
    if (opts.nodes) {
      params.push([...opts.nodes]);
      where += ` AND node = ANY($2::text[])`;
    }
    const rows = await this.db.query<{ node: string; from_status: string; to_status: string; time: string; attempt: number; record: TaskTransition['record'] | null; actor: TaskTransition['actor'] | null }>(
      `SELECT node, from_status, to_status, time, attempt, record, actor FROM wg_task_transitions WHERE ${where} ORDER BY seq`,
      params,
    );
    return rows.map((r) => {
      const t = { from: r.from_status, to: r.to_status, node: r.node, time: r.time, attempt: r.attempt } as TaskTransition;
      if (r.record) t.record = r.record;
      if (r.actor) t.actor = r.actor;
      return t;
    });
  }

  async importProject(graph: TaskGraph, transitions: readonly TaskTransition[], opts: ImportOptions = {}): Promise<'imported' | 'unchanged' | 'skipped'> {
    let written: HeldGraph | undefined;
    const outcome = await this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`workgraph.tasks.${graph.project_id}`]);
      const existing = await this.lockedGraph(tx, graph.project_id);
      if (existing && existing.graph.revision === graph.revision && existing.graph.updated_at === graph.updated_at) return 'unchanged' as const;
      if (existing && !opts.replace) return 'skipped' as const;
      await tx.query('DELETE FROM wg_task_transitions WHERE project_id = $1', [graph.project_id]);
      await tx.query('DELETE FROM wg_task_history WHERE project_id = $1', [graph.project_id]);
      for (const h of opts.history ?? []) await insertHistory(tx, graph.project_id, h.revision, [h]);
      const next = { ...graph, nodes: [...graph.nodes] };
      written = { seq: await writeWholeGraph(tx, next), graph: next };
      await insertTransitions(tx, graph.project_id, transitions);
      await notifyChange(tx, graph.project_id);
      return 'imported' as const;
    });
    if (written) this.hold(graph.project_id, written, wholeGraphRows(written.graph.nodes));
    return outcome;
  }

  /** Every project id with a task graph (for listings, export and the dashboard). */
  async listProjects(): Promise<string[]> {
    return (await this.db.query<{ project_id: string }>('SELECT project_id FROM wg_task_projects ORDER BY project_id')).map((r) => r.project_id);
  }

  /** Inside a transaction: the project row locked, and the graph brought up to date (undefined: no such project). */
  private async lockedGraph(tx: SqlRunner, projectId: string): Promise<HeldGraph | undefined> {
    const rows = await tx.query<ProjectRow>('SELECT * FROM wg_task_projects WHERE project_id = $1 FOR UPDATE', [projectId]);
    if (!rows.length) return undefined;
    const held = this.held.get(projectId);
    const seq = held?.seq ?? -1;
    const changed = Number(rows[0].write_seq) === seq ? [] : await this.nodeRows(tx, projectId, seq);
    return this.settle(tx, rows[0], held, changed);
  }

  /** The task rows of a project written after `seq` (every row for -1), in graph order. */
  private nodeRows(db: SqlRunner, projectId: string, seq: number): Promise<NodeRow[]> {
    return db.query<NodeRow>('SELECT node_id, position, node FROM wg_tasks WHERE project_id = $1 AND write_seq > $2 ORDER BY position', [projectId, seq]);
  }

  /**
   * The graph a project row describes, from the held graph and the rows written since it (all rows when none is
   * held); held from now on. A deleted task leaves more tasks than the row counts: then all rows are read again.
   */
  private async settle(db: SqlRunner, row: ProjectRow, held: HeldGraph | undefined, changed: NodeRow[]): Promise<HeldGraph> {
    const seq = Number(row.write_seq);
    if (held && held.seq === seq) return held;
    // `changed` holds the rows written after the held graph; a held graph that is no older than the row (a database
    // restored from a copy) cannot be brought up to date from them: then every row is read.
    const usable = held && held.seq < seq ? held : undefined;
    let rows = usable || !held ? changed : await this.nodeRows(db, row.project_id, -1);
    let nodes = merge(usable?.graph.nodes ?? [], rows, this.positions);
    if (nodes.length !== row.node_count && usable) {
      rows = await this.nodeRows(db, row.project_id, -1);
      nodes = merge([], rows, this.positions);
    }
    if (nodes.length !== row.node_count) {
      throw new StorageError(`task graph of project '${row.project_id}' in the database is damaged: ${row.node_count} tasks expected, ${nodes.length} found`, { project: row.project_id });
    }
    const graph: TaskGraph = {
      schema_version: row.schema_version,
      project_id: row.project_id,
      project_name: row.project_name,
      project_root: row.project_root,
      created_at: row.created_at,
      updated_at: row.graph_updated_at,
      revision: row.revision,
      nodes,
    };
    const out = { seq, graph };
    this.hold(row.project_id, out, rows.map((r) => ({ node: r.node, position: r.position })));
    return out;
  }

  /** Keeps a graph as the latest known (never replacing a later one), its nodes frozen: they are shared by readers. */
  private hold(projectId: string, held: HeldGraph, rows: readonly TaskRow[]): void {
    for (const r of rows) Object.freeze(r.node);
    Object.freeze(held.graph.nodes);
    Object.freeze(held.graph);
    this.positions.record(rows);
    const before = this.held.get(projectId);
    if (before && before.seq > held.seq) return;
    this.held.delete(projectId);
    this.held.set(projectId, held);
    if (this.held.size > HELD_PROJECTS) this.held.delete(this.held.keys().next().value!);
  }
}

/**
 * `base` (graph order) with `rows` (written since, in position order) put in: a changed task in its place, a new one
 * where its position puts it. Positions of the result are recorded by the caller.
 */
function merge(base: readonly TaskNode[], rows: readonly NodeRow[], positions: RowPositions): TaskNode[] {
  if (!rows.length) return [...base];
  if (!base.length) return rows.map((r) => r.node);
  const byId = new Map(rows.map((r) => [r.node_id, r]));
  const moved = base.some((n) => {
    const r = byId.get(n.id);
    return r !== undefined && r.position !== positions.get(n);
  });
  const known = new Set(base.map((n) => n.id));
  const added = rows.some((r) => !known.has(r.node_id));
  if (!moved && !added) return base.map((n) => byId.get(n.id)?.node ?? n);
  // Tasks added or moved: every task ordered by its position.
  const all = base.filter((n) => !byId.has(n.id)).map((n) => ({ node: n, position: positions.get(n)! }));
  for (const r of rows) all.push({ node: r.node, position: r.position });
  return all.sort((a, b) => a.position - b.position).map((x) => x.node);
}
