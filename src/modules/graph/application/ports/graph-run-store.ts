import type { GraphRunRecord, GraphRunSummary } from '../../domain/graph-run-record';

/**
 * Where finished graph runs are recorded, so every process sharing a data dir (and the dashboard) can show them:
 * bounded to the last N runs per tool. `save` is called after a run ended, off the engine's path.
 */
export interface GraphRunStore {
  /** Records a finished run, then forgets the oldest runs of its tool beyond the bound. */
  save(record: GraphRunRecord): Promise<void>;
  /** Recorded runs, newest first (of one tool, or all), at most `limit`. */
  list(opts?: { tool?: string; limit?: number }): Promise<GraphRunSummary[]>;
  /** @throws NotFoundError for an unknown (or forgotten) run id. */
  get(runId: string): Promise<GraphRunRecord>;
}
