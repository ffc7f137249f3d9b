import type { GraphRun } from './graph-run';

/**
 * The runs a host keeps inspectable: every run still going, plus the most recent finished ones (default 100). When
 * over the limit, the oldest finished runs are forgotten first; a running or paused run is never dropped.
 */
export class RecentRuns {
  private readonly runs = new Map<string, GraphRun>();

  constructor(private readonly limit = 100) {}

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

  /** Called when a run ends, so the bound also holds for runs that ended after newer ones started. */
  prune(): void {
    let excess = this.runs.size - this.limit;
    if (excess <= 0) return;
    for (const [id, run] of this.runs) {
      if (excess <= 0) break;
      if (run.isDone) {
        this.runs.delete(id);
        excess--;
      }
    }
  }
}
