/**
 * The debugger's hold on a run, checked at node boundaries: pause/step/stop requests, breakpoints, the wake-up of a
 * paused run, the waiters of a step, the time spent paused, and the abort signal that cancels an in-flight MCP call on
 * stop. The run owns its status and decides when a request is allowed; the gate only keeps the state.
 */
export class RunGate {
  private breakpoints: Set<string>;
  private pauseRequested = false;
  private stepRequested = false;
  private stopRequested = false;
  private wake?: () => void;
  private stepWaiters: Array<() => void> = [];
  private pausedAt = 0;
  private pausedTotalMs = 0;
  private readonly abort = new AbortController();

  constructor(
    breakpoints: readonly string[],
    /** Milliseconds since the epoch (paused time). */
    private readonly now: () => number,
  ) {
    this.breakpoints = new Set(breakpoints);
  }

  /** Whether stop() was called. */
  get stopped(): boolean {
    return this.stopRequested;
  }

  /** Total milliseconds spent paused so far (not counted against maxExecutionTimeMs). */
  get pausedMs(): number {
    return this.pausedTotalMs;
  }

  /** Aborted by stop(). */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** Whether the run holds before `nodeId`: a pause or step was requested, or a breakpoint is set on it. */
  shouldPauseAt(nodeId: string): boolean {
    return this.pauseRequested || this.stepRequested || this.breakpoints.has(nodeId);
  }

  requestPause(): void {
    this.pauseRequested = true;
  }

  /** Lets a paused run go on until the next pause or breakpoint. */
  resume(): void {
    this.pauseRequested = false;
    this.wake?.();
  }

  /** Lets a paused run run one node; settles when it pauses again or ends. */
  step(): Promise<void> {
    this.stepRequested = true;
    const done = new Promise<void>((resolve) => this.stepWaiters.push(resolve));
    this.wake?.();
    return done;
  }

  /** Stops at the next node boundary and aborts an in-flight MCP call. */
  stop(): void {
    this.stopRequested = true;
    this.abort.abort();
    this.wake?.();
  }

  setBreakpoints(nodeIds: string[]): void {
    this.breakpoints = new Set(nodeIds);
  }

  clearBreakpoints(): void {
    this.breakpoints = new Set();
  }

  getBreakpoints(): string[] {
    return [...this.breakpoints];
  }

  /**
   * Starts a pause: clears the requests, ends the step in progress and returns what settles on resume/step/stop. The
   * wake-up is armed before anything can observe the pause, so a resume()/step()/stop() called from onPause or from a
   * step() continuation is never lost.
   */
  enterPause(): Promise<void> {
    this.pauseRequested = false;
    this.stepRequested = false;
    const woken = new Promise<void>((resolve) => (this.wake = resolve));
    // A step ends when the run pauses again.
    this.releaseStepWaiters();
    this.pausedAt = this.now();
    return woken;
  }

  /** Ends a pause: disarms the wake-up and adds the time paused. */
  leavePause(): void {
    this.wake = undefined;
    this.pausedTotalMs += this.now() - this.pausedAt;
  }

  /** Settles every step() waiting (the run paused again or ended). */
  releaseStepWaiters(): void {
    const waiters = this.stepWaiters;
    this.stepWaiters = [];
    for (const w of waiters) w();
  }
}
