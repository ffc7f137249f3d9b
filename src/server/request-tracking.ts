import type { Transport } from '@modelcontextprotocol/server';
import type { Logger } from '../kernel/logger';
import type { CallTracker } from '../kernel/shutdown-coordinator';
import { answerTooLargeToSend } from './sdk-answer-guards';

export interface RequestTracking {
  /** The session's calls (a CallTracker of the shutdown coordinator). */
  calls: CallTracker;
  /** Ids of requests that arrived once shutdown had started: the server answers them "shutting down". */
  refused: Set<string | number>;
  logger: Logger;
}

/**
 * Every request counts as in flight from the moment the transport delivers it until its response is sent — not only
 * from when a tool starts — so a shutdown that starts right after a request arrived (the end of stdin just behind the
 * last line) still waits for its answer. A request the client cancels is no longer waited for. An answer too large to
 * serialize is replaced by an error with the same id (sdk-answer-guards.ts). Wraps the transport's `onmessage`,
 * `send` and `onclose`: call it once the protocol side has set them.
 */
export function trackRequests(transport: Transport, { calls, refused, logger }: RequestTracking): void {
  const pending = new Map<string | number, () => void>();
  const release = (id: unknown) => {
    const done = pending.get(id as string | number);
    if (!done) return;
    pending.delete(id as string | number);
    done();
  };
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const m = message as { id?: string | number; method?: string; params?: { requestId?: unknown } };
    if (m.method !== undefined && m.id !== undefined && !pending.has(m.id)) {
      // Whether a request is taken is decided when it arrives, not when its handler runs a few ticks later.
      if (!calls.isAccepting) refused.add(m.id);
      pending.set(m.id, calls.begin());
    }
    if (m.method === 'notifications/cancelled') release(m.params?.requestId);
    deliver?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    try {
      return await send(message, options).catch((e: unknown) => {
        const replacement = answerTooLargeToSend(message, e);
        if (!replacement) throw e;
        // Never silence: the client waits for this id. The reason goes to the log as well as to the client.
        logger.error(`answer to request ${JSON.stringify(replacement.id)} not sent: ${replacement.reason}`, { id: replacement.id });
        return send(replacement.message, options);
      });
    } finally {
      const m = message as { id?: string | number; method?: string };
      if (m.method === undefined && m.id !== undefined) {
        release(m.id);
        refused.delete(m.id);
      }
    }
  };
  const onclose = transport.onclose;
  transport.onclose = () => {
    for (const id of [...pending.keys()]) release(id);
    onclose?.();
  };
}
