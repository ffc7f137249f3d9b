import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server';

/**
 * One session's SSE events kept for resumption: a client whose stream broke reconnects with `Last-Event-ID` and the
 * SDK replays what it missed on that stream. Bounded (the oldest events go first) so a session that never
 * reconnects costs at most `maxEvents` messages; it lives and dies with its session.
 */
export class BoundedEventStore implements EventStore {
  private readonly events = new Map<string, { streamId: string; message: JSONRPCMessage }>();
  private seq = 0;

  constructor(private readonly maxEvents = 1_000) {}

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    // Event ids carry their stream id so the stream is found even after older events were dropped.
    const eventId = `${streamId}|${++this.seq}`;
    this.events.set(eventId, { streamId, message });
    if (this.events.size > this.maxEvents) this.events.delete(this.events.keys().next().value as string);
    return eventId;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.get(eventId)?.streamId ?? streamOf(eventId);
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
    const streamId = streamOf(lastEventId);
    if (streamId === undefined) return '';
    const after = Number(lastEventId.slice(lastEventId.lastIndexOf('|') + 1));
    // Map iteration follows insertion order, which is the sequence order.
    for (const [eventId, event] of this.events) {
      if (event.streamId !== streamId || Number(eventId.slice(eventId.lastIndexOf('|') + 1)) <= after) continue;
      // The SDK stores an empty priming event at the start of each stream; it carries no message to replay.
      if (!('jsonrpc' in event.message)) continue;
      await send(eventId, event.message);
    }
    return streamId;
  }
}

function streamOf(eventId: string): string | undefined {
  const at = eventId.lastIndexOf('|');
  return at > 0 ? eventId.slice(0, at) : undefined;
}
