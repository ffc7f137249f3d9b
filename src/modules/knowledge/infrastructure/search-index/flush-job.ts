import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long the job runs between two looks at whether the operation it runs beside is still running. */
const SLICE_MS = 0.1;

/** Where a job's work may stop for now: undefined to go on, or a promise to await first (the job is parked). */
export type Pause = () => Promise<void> | undefined;

/**
 * Work done a slice at a time beside operations that leave the main thread idle — the graph's fsync, on the thread
 * pool — and nowhere else: it runs only inside {@link runWhile} (from the operation's start until it has settled and
 * the current slice has ended) or, once {@link finish} is called, to its end. Between those it is parked, so its CPU
 * never lands in anything but the adds that lend it their fsync's time. The work calls `pause` between its steps.
 */
export class FlushJob<T> {
  private wake?: () => void;
  private parked?: () => void;
  private busy = false;
  private draining = false;
  private deadline = 0;
  /** The work has ended (its result or its error is ready). */
  settled = false;
  private readonly result: Promise<T>;

  constructor(work: (pause: Pause) => Promise<T>) {
    this.result = this.park().then(() => work(() => this.pause()));
    const end = () => {
      this.settled = true;
      this.release();
    };
    this.result.then(end, end);
  }

  /** Runs the work while `operation` runs; resolves once the work has parked again (or ended). Never rejects. */
  runWhile(operation: Promise<unknown>): Promise<void> {
    if (this.settled || this.draining) return Promise.resolve();
    this.busy = true;
    const idle = () => {
      this.busy = false;
    };
    operation.then(idle, idle);
    this.deadline = performance.now() + SLICE_MS;
    return new Promise((resolve) => {
      this.parked = resolve;
      this.resume();
    });
  }

  /** Runs the work to its end without pausing; its result. */
  finish(): Promise<T> {
    this.draining = true;
    this.resume();
    return this.result;
  }

  private pause(): Promise<void> | undefined {
    if (this.draining || performance.now() < this.deadline) return undefined;
    return this.turn();
  }

  private async turn(): Promise<void> {
    // A turn of the event loop: the operation's completion (the fsync's callback) runs, if it is done.
    await nextTurn();
    if (this.draining) return;
    if (this.busy) {
      this.deadline = performance.now() + SLICE_MS;
      return;
    }
    await this.park();
  }

  private park(): Promise<void> {
    this.release();
    return new Promise((resolve) => (this.wake = resolve));
  }

  private release(): void {
    const parked = this.parked;
    this.parked = undefined;
    parked?.();
  }

  private resume(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
