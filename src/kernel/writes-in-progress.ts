/**
 * Writes that must reach the disk before the process exits (a verdict, a task going back to IN_PROGRESS after a
 * cancelled run, a rebuild). A store or use case registers the write's promise; on shutdown the server waits for every
 * registered write (bounded) after in-flight calls are settled, then exits.
 */
export interface WritesInProgress {
  /** Registers `write` until it settles and returns it unchanged (its rejection is the caller's to handle). */
  track<T>(write: Promise<T>): Promise<T>;
}

/** For code run outside a server (CLI commands, tests): nothing to wait for at exit. */
export const untrackedWrites: WritesInProgress = { track: (write) => write };
