/**
 * A call's abort signal: aborts when the request is cancelled or the session shuts down. Built only when a use case
 * reads it (most calls never do): an AbortController and two listeners per call are a measurable share of a fast
 * tool call's cost. Not `AbortSignal.any([request, shutdown])`: on Node 20 every signal made that way stays referenced
 * by the long-lived shutdown signal (about 1.2 KB per call, found by bench/memory-soak.js), so the listener on the
 * shutdown signal is added here and removed by `dispose` when the call ends.
 */
export function lazyCallSignal(request: AbortSignal, shutdown: AbortSignal): { signal: () => AbortSignal; dispose: () => void } {
  let combined: AbortSignal | undefined;
  let cleanup: (() => void) | undefined;
  const signal = (): AbortSignal => {
    if (combined) return combined;
    const controller = new AbortController();
    const abort = () => controller.abort();
    if (request.aborted || shutdown.aborted) controller.abort();
    request.addEventListener('abort', abort, { once: true });
    shutdown.addEventListener('abort', abort, { once: true });
    cleanup = () => {
      shutdown.removeEventListener('abort', abort);
      request.removeEventListener('abort', abort);
    };
    return (combined = controller.signal);
  };
  return { signal, dispose: () => cleanup?.() };
}
