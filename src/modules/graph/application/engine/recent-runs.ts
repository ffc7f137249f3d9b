import type { GraphRun } from './graph-run';

/**
 * The runs a host keeps inspectable: every run still going, plus the most recent finished ones, bounded in number
 * (default 100) and in the bytes their histories hold together (default 256 MiB). When over either bound, the oldest
 * finished runs are forgotten first; a running or paused run is never dropped (its own history is capped per run).
 */
export class RecentRuns {
  private readonly runs = new Map<string, GraphRun>();

  constructor(
    private readonly limit = 100,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {}

  add(run: GraphRun): void {
    this.runs.set(run.executionId, run);
    this.prune();
  }

  get(executionId: string): GraphRun | undefined {
    return this.runs.get(executionId);
  }

  /** Oldest first. */
  all(): GraphRun[] {
    return [...this.runs.values()];
  }

  /** Bytes held by the histories of the finished runs kept. */
  finishedBytes(): number {
    let bytes = 0;
    for (const run of this.runs.values()) if (run.isDone) bytes += run.history.byteSize;
    return bytes;
  }

  /** Called when a run ends, so the bounds also hold for runs that ended after newer ones started. */
  prune(): void {
    let excess = this.runs.size - this.limit;
    let bytes = this.finishedBytes();
    if (excess <= 0 && bytes <= this.maxBytes) return;
    for (const [id, run] of this.runs) {
      if (excess <= 0 && bytes <= this.maxBytes) break;
      if (run.isDone) {
        this.runs.delete(id);
        excess--;
        bytes -= run.history.byteSize;
      }
    }
  }
}
