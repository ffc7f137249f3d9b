/** Time source, injected so tests can fix it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Timers, injected beside the clock so services that wait or repeat read straight and tests can drive them. */
export interface Timers {
  /** Calls `fn` every `ms` until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
  /** Calls `fn` once after `ms` unless the returned function is called first. */
  after(ms: number, fn: () => void): () => void;
}

export const systemTimers: Timers = {
  every(ms, fn) {
    const t = setInterval(fn, ms);
    return () => clearInterval(t);
  },
  after(ms, fn) {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};
