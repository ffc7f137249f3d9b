/**
 * Work written as a generator that yields between its steps (a term, a few terms) can be run to its end at once
 * ({@link drain}) or a few steps at a time by a flush in the background (flush-job.ts), in the fsync's time of adds.
 */
export type Steps<T> = Generator<void, T, void>;

/** Runs the steps to their end. */
export function drain<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
