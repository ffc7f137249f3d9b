/**
 * Writes in progress (knowledge appends and rebuilds, task file changes). Shutdown awaits {@link WriteTracker.idle}
 * before the process exits, so an end of stdin or a signal never cuts a write in half; the stores register each write
 * with {@link WriteTracker.run}.
 */
export class WriteTracker {
  private readonly active = new Map<number, string>();
  private nextId = 0;
  private waiters: Array<() => void> = [];

  /** How many writes are in progress. */
  get count(): number {
    return this.active.size;
  }

  /** What is being written (for logs while shutdown waits). */
  describe(): string[] {
    return [...this.active.values()];
  }

  /** Runs `fn` as a tracked write. */
  async run<T>(what: string, fn: () => Promise<T>): Promise<T> {
    const id = this.nextId++;
    this.active.set(id, what);
    try {
      return await fn();
    } finally {
      this.active.delete(id);
      if (this.active.size === 0) {
        const waiters = this.waiters;
        this.waiters = [];
        for (const w of waiters) w();
      }
    }
  }

  /** Resolves true once no write is in progress, or false after `timeoutMs` (default: no limit). */
  idle(timeoutMs?: number): Promise<boolean> {
    if (this.active.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        if (timer) clearTimeout(timer);
        resolve(true);
      };
      this.waiters.push(done);
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== done);
          resolve(false);
        }, timeoutMs);
      }
    });
  }
}
