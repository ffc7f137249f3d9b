import { untrackedWrites, type WritesInProgress } from '../../../../kernel/writes-in-progress';

/**
 * Validation runs in progress in this server process, keyed by project and node, so a second `validate_task_loop`
 * call waits for the run already going (never a second run). Kept in memory only: a finished run's result is stored
 * on its node (`last_run`), and another server process sees a foreign run as a VALIDATING node with an owner lease.
 */

/** One validation run in progress. */
export interface ActiveValidationRun<A = unknown> {
  readonly key: string;
  readonly runId: string;
  /** Epoch ms the run was registered. */
  readonly startedAt: number;
  /** The latest output line, for progress messages. */
  lastLine?: string;
  /** Aborting cancels the run: its process tree is killed and the node goes back to IN_PROGRESS. */
  readonly controller: AbortController;
  /** Settles with the final answer, or rejects (cancelled, refused, lost race). Never unhandled. */
  readonly promise: Promise<A>;
}

export class ValidationRunRegistry<A = unknown> {
  /** @param writes where each run registers itself: a run ends with its outcome written, which shutdown waits for. */
  constructor(private readonly writes: WritesInProgress = untrackedWrites) {}

  private readonly active = new Map<string, ActiveValidationRun<A>>();

  /** The key of a node: project id and node id. */
  static keyOf(projectId: string, nodeId: string): string {
    return `${projectId}\u0000${nodeId}`;
  }

  activeRun(key: string): ActiveValidationRun<A> | undefined {
    return this.active.get(key);
  }

  /** Whether run `runId` is in progress in this process (the lease rule asks this). */
  runsHere(runId: string): boolean {
    for (const r of this.active.values()) if (r.runId === runId) return true;
    return false;
  }

  /**
   * Registers a run (synchronously, so concurrent callers find it) and removes it when it settles. `body` receives the run's abort signal and a setter for the last output line.
   */
  start(
    key: string,
    runId: string,
    startedAt: number,
    body: (signal: AbortSignal, setLastLine: (line: string) => void) => Promise<A>,
  ): ActiveValidationRun<A> {
    const controller = new AbortController();
    const run: { -readonly [K in keyof ActiveValidationRun<A>]: ActiveValidationRun<A>[K] } = {
      key,
      runId,
      startedAt,
      controller,
      promise: undefined as unknown as Promise<A>,
    };
    run.promise = Promise.resolve()
      .then(() => body(controller.signal, (line) => (run.lastLine = line)))
      .finally(() => {
        if (this.active.get(key) === run) this.active.delete(key);
      });
    run.promise.catch(() => undefined);
    void this.writes.track(run.promise).catch(() => undefined);
    this.active.set(key, run);
    return run;
  }

  /** Number of runs in progress. */
  get size(): number {
    return this.active.size;
  }

  /** Cancels every run in progress and waits (at most `timeoutMs`, default 5 s) until each recorded its outcome. */
  async cancelAll(timeoutMs = 5_000): Promise<void> {
    const runs = [...this.active.values()];
    for (const r of runs) r.controller.abort();
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.allSettled(runs.map((r) => r.promise)),
      new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
  }
}
