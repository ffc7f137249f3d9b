import { WriteTracker } from './write-tracker';

/** How long shutdown waits for writes in progress (a rebuild of a very large knowledge graph) before the hooks. */
export const WRITES_WAIT_MS = 60_000;

/**
 * Shutdown hooks: modules that own processes or clients (validation commands, graph MCP servers, file watchers)
 * register a cleanup here; the server runs them all when the session ends (end of stdin, broken pipe, SIGTERM).
 */
export class Lifecycle {
  /** Writes in progress: stores register theirs here, shutdown waits for {@link WriteTracker.idle} before exiting. */
  readonly writes = new WriteTracker();
  private readonly hooks: Array<{ name: string; fn: () => Promise<void> | void }> = [];
  private readonly controller = new AbortController();
  private shuttingDown?: Promise<void>;

  /** Aborted when shutdown starts: in-flight calls use it to stop promptly. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  onShutdown(name: string, fn: () => Promise<void> | void): void {
    this.hooks.push({ name, fn });
  }

  /**
   * Runs every hook once (in reverse registration order), each bounded by `timeoutMs` (default 5,000) so one stuck
   * cleanup cannot keep the process alive. Returns the names of hooks that failed or timed out.
   */
  shutdown(timeoutMs = 5_000): Promise<void> {
    if (!this.shuttingDown) {
      this.controller.abort(new Error('server shutting down'));
      this.shuttingDown = (async () => {
        // A write cut in half by exit is what the stores' ordering can only repair later: let writes finish first.
        await this.writes.idle(WRITES_WAIT_MS);
        for (const hook of [...this.hooks].reverse()) {
          let timer: NodeJS.Timeout | undefined;
          await Promise.race([
            Promise.resolve()
              .then(hook.fn)
              .catch(() => undefined),
            new Promise<void>((resolve) => {
              timer = setTimeout(resolve, timeoutMs);
              timer.unref();
            }),
          ]);
          if (timer) clearTimeout(timer);
        }
      })();
    }
    return this.shuttingDown;
  }
}
