import { untrackedWrites, type WritesInProgress } from '../../../../kernel/writes-in-progress';

/**
 * Validation runs of this server process, keyed by project and node, so a second `validate_task_loop` call waits for
 * the run already going (never a second run), and a call after the run ended gets that run's answer.
 * Kept in memory only: another server process sees a foreign run as a VALIDATING node (see the stale rule).
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

interface FinishedRun<A> {
  runId: string;
  answer: A;
}

export class ValidationRunRegistry<A = unknown> {
  /** @param writes where each run registers itself: a run ends with its outcome written, which shutdown waits for. */
  constructor(private readonly writes: WritesInProgress = untrackedWrites) {}

  private readonly active = new Map<string, ActiveValidationRun<A>>();
  /** The latest finished answer per key; bounded by the number of nodes that ever ran. */
  private readonly finished = new Map<string, FinishedRun<A>>();

  /** The key of a node: project id and node id. */
  static keyOf(projectId: string, nodeId: string): string {
    return `${projectId}\u0000${nodeId}`;
  }

  activeRun(key: string): ActiveValidationRun<A> | undefined {
    return this.active.get(key);
  }

  /** The answer of the latest finished run of `key`, when it was run `runId`. */
  finishedAnswer(key: string, runId: string | undefined): A | undefined {
    const f = this.finished.get(key);
    return f && runId !== undefined && f.runId === runId ? f.answer : undefined;
  }

  /**
   * Registers a run (synchronously, so concurrent callers find it) and removes it when it settles, remembering a
   * successful answer. `body` receives the run's abort signal and a setter for the last output line.
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
      .then(
        (answer) => {
          this.finished.set(key, { runId, answer });
          return answer;
        },
      )
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
