import { NotFoundError } from '../../../../kernel/errors';
import type { PgDatabase } from '../../../../kernel/postgres/pg-database';
import { CHANGE_CHANNEL } from '../../../../kernel/postgres/pg-change-bridge';
import { summarizeRun, type GraphRunRecord, type GraphRunSummary } from '../../domain/graph-run-record';
import type { GraphRunStore } from '../../application/ports/graph-run-store';
import { DEFAULT_RUNS_PER_TOOL } from '../file-graph-run-store';

/**
 * Recorded graph runs in PostgreSQL (`wg_graph_runs`), chosen by `--database-url`: every server of the database and
 * its dashboards see the same runs. Same bound and order as the file store: the last `keepPerTool` runs of each tool,
 * newest start first (ties by run id, descending). A save replaces a record with the same run id, prunes its tool in
 * the same transaction and notifies `workgraph_changes` with `{kind: "graph-run", project: tool, id: runId}`.
 */
export class PgGraphRunStore implements GraphRunStore {
  constructor(private readonly db: PgDatabase, private readonly keepPerTool = DEFAULT_RUNS_PER_TOOL) {}

  async save(record: GraphRunRecord): Promise<void> {
    await this.db.transaction(async (tx) => {
      // One save per tool at a time: two concurrent prunes of one tool could otherwise deadlock on each other's rows.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`wg_graph_runs:${record.tool}`]);
      await tx.query(
        `INSERT INTO wg_graph_runs (run_id, tool, started_ms, summary, record) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (run_id) DO UPDATE SET tool = EXCLUDED.tool, started_ms = EXCLUDED.started_ms, summary = EXCLUDED.summary, record = EXCLUDED.record`,
        [record.runId, record.tool, Date.parse(record.startedAt), JSON.stringify(summarizeRun(record)), JSON.stringify(record)],
      );
      await tx.query(
        `DELETE FROM wg_graph_runs WHERE run_id IN (
           SELECT run_id FROM wg_graph_runs WHERE tool = $1 ORDER BY started_ms DESC, run_id DESC OFFSET $2)`,
        [record.tool, this.keepPerTool],
      );
      // The save's time (as the other stores notify): a live record's endedAt stays put while a node runs, and a
      // change at the time of the one before would not read as a change (resource_changes' changedAt).
      const event = { kind: 'graph-run', project: record.tool, id: record.runId, at: new Date().toISOString() };
      await tx.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, JSON.stringify(event)]);
    });
  }

  async list(opts: { tool?: string; limit?: number } = {}): Promise<GraphRunSummary[]> {
    const params: unknown[] = [];
    let where = '';
    if (opts.tool !== undefined) {
      params.push(opts.tool);
      where = 'WHERE tool = $1';
    }
    let limit = '';
    if (opts.limit !== undefined) {
      params.push(Math.max(0, Math.floor(opts.limit)));
      limit = `LIMIT $${params.length}`;
    }
    const rows = await this.db.query<{ summary: GraphRunSummary }>(
      `SELECT summary FROM wg_graph_runs ${where} ORDER BY started_ms DESC, run_id DESC ${limit}`,
      params,
    );
    return rows.map((r) => r.summary);
  }

  async get(runId: string): Promise<GraphRunRecord> {
    const rows = await this.db.query<{ record: GraphRunRecord }>('SELECT record FROM wg_graph_runs WHERE run_id = $1', [runId]);
    if (!rows.length) {
      throw new NotFoundError('graph run', runId, `graph run '${runId}' is not recorded (runs are kept for the last ${this.keepPerTool} runs of each tool)`);
    }
    return rows[0].record;
  }
}
