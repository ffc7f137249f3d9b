import type { GraphRun } from './graph-run';

/**
 * The runs whose final record is still being written to the run store, each holding its history until it is.
 * When the writes fall behind (a slow or busy disk), unwritten records would pile up without bound: the histories of
 * the finished runs among them stay within `maxBytes` (the kept-runs bound, `--graph-history-mb`) — past it, a run's
 * answer waits until its own record was written (`roomFor`).
 */
export class UnwrittenRecords {
  private readonly records = new Map<Promise<void>, GraphRun>();

  constructor(private readonly maxBytes: number) {}

  /** `recorded` settles once `run`'s final record was written (or its write failed). */
  add(recorded: Promise<void>, run: GraphRun): void {
    this.records.set(recorded, run);
    void recorded.then(() => this.records.delete(recorded));
  }

  /** Settles at once while the unwritten finished runs hold at most `maxBytes` of history, else once `recorded` did. */
  async roomFor(recorded: Promise<void>): Promise<void> {
    let bytes = 0;
    for (const run of this.records.values()) if (run.isDone) bytes += run.history.byteSize;
    if (bytes > this.maxBytes && this.records.has(recorded)) await recorded;
  }

  /** Settles once every record being written now was. */
  async drained(): Promise<void> {
    await Promise.all([...this.records.keys()]);
  }
}
