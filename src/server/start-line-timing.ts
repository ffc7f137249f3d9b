import type { Transport } from '@modelcontextprotocol/server';

/** How long after the answer it waits for (a client often sends a few requests back to back). */
const AFTER_ANSWER_MS = 25;
/** When the client asks nothing: after `initialized`, or after the start for a client that never initializes. */
const WHEN_SILENT_MS = 300;

/**
 * Calls `announce` (the stdio start line) once the client has been answered first. The start line counts workflows,
 * which builds the container and loads the workflow module — hundreds of ms of module loading on a busy machine —
 * so it must not run ahead of the handshake and the request that follows it (tools/list, usually): a fixed delay
 * after `initialized` could not promise that when the machine is loaded, and then tools/list waited for it.
 * - An MCP client: 25 ms after the first answer that follows `notifications/initialized` (300 ms after `initialized`
 *   when it asks nothing more).
 * - A plain JSON-RPC client (no `initialize`): 25 ms after its first answer, or 300 ms after the start when it asks
 *   nothing.
 * Wraps the transport's `onmessage` and `send` (call it after the server connected); `announce` runs at most once.
 */
export function announceAfterFirstAnswer(transport: Transport, announce: () => void): void {
  let phase: 'start' | 'handshake' | 'initialized' | 'done' = 'start';
  let timer: NodeJS.Timeout | undefined;
  const schedule = (ms: number) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      phase = 'done';
      announce();
    }, ms);
    timer.unref();
  };
  schedule(WHEN_SILENT_MS);

  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (phase !== 'done') {
      const method = (message as { method?: string }).method;
      if (method === 'initialize' && phase === 'start') {
        phase = 'handshake';
        if (timer) clearTimeout(timer);
      } else if (method === 'notifications/initialized' && phase === 'handshake') {
        phase = 'initialized';
        schedule(WHEN_SILENT_MS);
      }
    }
    deliver?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    await send(message, options);
    const m = message as { id?: unknown; method?: string };
    // An answer (no method, an id) other than the one to `initialize`.
    if ((phase === 'initialized' || phase === 'start') && m.method === undefined && m.id !== undefined) {
      phase = 'done';
      schedule(AFTER_ANSWER_MS);
    }
  };
}
