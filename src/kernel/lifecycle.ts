/**
 * Shutdown hooks: modules that own processes or clients (validation commands, graph MCP servers, file watchers)
 * register a cleanup here; the server runs them all when the session ends (end of stdin, broken pipe, SIGTERM).
 */
export class Lifecycle {
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
