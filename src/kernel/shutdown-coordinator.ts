import type { Logger } from './logger';
import type { WritesInProgress } from './writes-in-progress';

/** Default time in-flight calls get to finish once shutdown starts (`--shutdown-grace`, WORKGRAPH_SHUTDOWN_GRACE). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

export interface ShutdownCoordinatorOptions {
  /** How long in-flight calls may go on after shutdown starts before they are cancelled. Default 10 s. */
  graceMs?: number;
  /** Bound on each later wait: calls settling after cancellation, each hook, writes in progress. Default 10 s. */
  settleMs?: number;
  logger?: Logger;
}

/** Calls of one session (a stdio connection today; one per HTTP session later), tracked so shutdown can drain them. */
export class CallTracker {
  private readonly controller = new AbortController();
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];
  private accepting = true;

  /** Aborted when this session's remaining calls are cancelled (grace over, or the session ended without output). */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** False once shutdown (or the end of this session) started: new calls are refused. */
  get isAccepting(): boolean {
    return this.accepting;
  }

  get size(): number {
    return this.inFlight;
  }

  /** Marks a call as started; the returned function marks it done (call it exactly once, in a `finally`). */
  begin(): () => void {
    this.inFlight++;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.inFlight--;
      if (this.inFlight === 0) this.idleWaiters.splice(0).forEach((w) => w());
    };
  }

  stopAccepting(): void {
    this.accepting = false;
  }

  /** Cancels every call still running (their context signal aborts). */
  cancel(reason = 'server shutting down'): void {
    if (!this.controller.signal.aborted) this.controller.abort(new Error(reason));
  }

  /** Resolves true once no call is in flight, or false after `timeoutMs`. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((w) => w !== waiter);
        resolve(false);
      }, timeoutMs);
      timer.unref?.();
      this.idleWaiters.push(waiter);
    });
  }

  /**
   * Ends this session's calls: no new ones, the running ones get `graceMs` to finish, then are cancelled and get
   * `settleMs` more to answer (a cancelled call answers with an error and records its outcome).
   */
  async drain(graceMs: number, settleMs: number): Promise<void> {
    this.stopAccepting();
    if (!(await this.idle(graceMs))) {
      this.cancel();
      await this.idle(settleMs);
    }
  }
}

/** Writes in progress, awaited before exit. */
export class WriteRegistry implements WritesInProgress {
  private readonly pending = new Set<Promise<unknown>>();

  track<T>(write: Promise<T>): Promise<T> {
    const settled = write.then(
      () => undefined,
      () => undefined,
    );
    this.pending.add(settled);
    void settled.then(() => this.pending.delete(settled));
    return write;
  }

  get size(): number {
    return this.pending.size;
  }

  /** Resolves true once every write registered so far (and any registered meanwhile) settled, false after `timeoutMs`. */
  async settled(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (this.pending.size > 0) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([Promise.all([...this.pending]), new Promise((r) => (timer = setTimeout(r, left)))]);
      clearTimeout(timer);
    }
    return true;
  }
}

interface Hook {
  name: string;
  fn: () => Promise<void> | void;
  /** Synchronous last resort for an immediate exit (second signal): kill process trees, nothing async. */
  now?: () => void;
}

/**
 * The one shutdown path of the server, whatever the transport (stdio today, HTTP next) and whatever the trigger
 * (SIGTERM/SIGINT/SIGHUP, end of stdin, broken pipe):
 * 1. stop taking calls (every session's {@link CallTracker});
 * 2. let in-flight calls finish for the grace period, then cancel the rest and let them answer;
 * 3. run the shutdown hooks, latest registered first (validation runs cancelled — their tasks back to IN_PROGRESS —
 *    and command trees killed; graph runs stopped; MCP server children closed; watchers closed), each bounded;
 * 4. wait for the writes in progress (bounded);
 * then the caller exits 0. {@link exitNow} is the second signal's path: synchronous kills, then exit at once.
 */
export class ShutdownCoordinator {
  readonly writes = new WriteRegistry();
  private readonly hooks: Hook[] = [];
  private readonly sessions = new Set<CallTracker>();
  private readonly controller = new AbortController();
  private shuttingDown?: Promise<void>;
  private endGrace?: () => void;
  readonly graceMs: number;
  private readonly settleMs: number;
  private readonly logger?: Logger;

  constructor(opts: ShutdownCoordinatorOptions = {}) {
    this.graceMs = opts.graceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
    this.settleMs = opts.settleMs ?? 10_000;
    this.logger = opts.logger;
  }

  /** Aborted once in-flight work must stop (grace over): background work (graph runs, validation runs) follows it. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get isShuttingDown(): boolean {
    return this.shuttingDown !== undefined;
  }

  /** A new session's call tracker, drained by shutdown; `close()` of the session should call {@link endSession}. */
  openSession(): CallTracker {
    const tracker = new CallTracker();
    if (this.shuttingDown) tracker.stopAccepting();
    this.sessions.add(tracker);
    return tracker;
  }

  /** Drains one session (its end of input) without shutting the server down; resolves when its calls settled. */
  async endSession(tracker: CallTracker, opts: { graceMs?: number } = {}): Promise<void> {
    await tracker.drain(opts.graceMs ?? this.graceMs, this.settleMs);
    this.sessions.delete(tracker);
  }

  /**
   * Registers cleanup for shutdown. `now`, when given, is what must still happen on an immediate exit (second
   * signal): synchronous, e.g. killing command process trees.
   */
  onShutdown(name: string, fn: () => Promise<void> | void, now?: () => void): void {
    this.hooks.push({ name, fn, now });
  }

  /**
   * Starts shutdown once (later calls return the same promise). `graceMs` overrides the configured grace, e.g. 0
   * when nobody can read the answers any more (broken output pipe).
   */
  beginShutdown(reason: string, opts: { graceMs?: number } = {}): Promise<void> {
    if (!this.shuttingDown) {
      const graceMs = opts.graceMs ?? this.graceMs;
      this.logger?.info('shutting down', { reason, graceMs, inFlightCalls: this.inFlightCalls() });
      for (const s of this.sessions) s.stopAccepting();
      this.shuttingDown = this.run(graceMs);
    }
    return this.shuttingDown;
  }

  /**
   * Ends the grace period now (calls still running are cancelled at once). For a signal that arrives while a shutdown
   * started by the end of stdin is draining: the SDK's client, for one, closes stdin, then sends SIGTERM after 2 s
   * and SIGKILL after 4 s, so waiting out the full grace would get the server killed with its commands orphaned.
   */
  hurry(): void {
    this.endGrace?.();
  }

  /** Second signal: synchronous kills (command trees, children), then the caller exits at once. */
  exitNow(): void {
    for (const hook of [...this.hooks].reverse()) {
      try {
        hook.now?.();
      } catch {
        // best effort: the process is exiting
      }
    }
  }

  private inFlightCalls(): number {
    let n = 0;
    for (const s of this.sessions) n += s.size;
    return n;
  }

  private async run(graceMs: number): Promise<void> {
    const sessions = [...this.sessions];
    const graceOver = new Promise<boolean>((resolve) => (this.endGrace = () => resolve(false)));
    const allIdle = await Promise.race([Promise.all(sessions.map((s) => s.idle(graceMs))).then((idle) => idle.every(Boolean)), graceOver]);
    this.endGrace = undefined;
    if (!allIdle) this.logger?.info('cancelling calls still running', { graceMs });
    this.controller.abort(new Error('server shutting down'));
    for (const s of sessions) s.cancel();
    await Promise.all(sessions.map((s) => s.idle(this.settleMs)));
    for (const hook of [...this.hooks].reverse()) {
      let timer: NodeJS.Timeout | undefined;
      const done = await Promise.race([
        Promise.resolve()
          .then(hook.fn)
          .then(
            () => true,
            (e: Error) => {
              this.logger?.warn('shutdown step failed', { step: hook.name, err: e?.message });
              return true;
            },
          ),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), this.settleMs);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
      if (!done) {
        this.logger?.warn('shutdown step did not finish in time', { step: hook.name, ms: this.settleMs });
        try {
          hook.now?.();
        } catch {
          // best effort
        }
      }
    }
    if (!(await this.writes.settled(this.settleMs))) {
      this.logger?.warn('writes still in progress at exit', { writes: this.writes.size });
    }
  }
}
