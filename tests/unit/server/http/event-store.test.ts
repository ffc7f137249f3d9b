import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BoundedEventStore } from '../../../../src/server/http/event-store';

const note = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: n } });

async function replay(store: BoundedEventStore, after: string): Promise<{ stream: string; sent: Array<[string, JSONRPCMessage]> }> {
  const sent: Array<[string, JSONRPCMessage]> = [];
  const stream = await store.replayEventsAfter(after, { send: async (id, m) => void sent.push([id, m]) });
  return { stream, sent };
}

describe('BoundedEventStore (SSE resumption)', () => {
  it('replays only the events of the same stream after the given id, in order, skipping priming events', async () => {
    const store = new BoundedEventStore();
    const prime = await store.storeEvent('s1', {} as JSONRPCMessage);
    const a1 = await store.storeEvent('s1', note(1));
    await store.storeEvent('s2', note(100));
    const a2 = await store.storeEvent('s1', note(2));
    const a3 = await store.storeEvent('s1', note(3));
    expect(await store.getStreamIdForEventId(a1)).toBe('s1');
    const fromPrime = await replay(store, prime);
    expect(fromPrime.stream).toBe('s1');
    expect(fromPrime.sent.map(([id]) => id)).toEqual([a1, a2, a3]);
    expect((await replay(store, a2)).sent).toEqual([[a3, note(3)]]);
  });

  it('keeps at most maxEvents, dropping the oldest; a dropped id still names its stream', async () => {
    const store = new BoundedEventStore(3);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await store.storeEvent('s', note(i)));
    const { stream, sent } = await replay(store, ids[0]);
    expect(stream).toBe('s');
    expect(sent.map(([id]) => id)).toEqual(ids.slice(2));
    expect(await store.getStreamIdForEventId(ids[0])).toBe('s');
  });

  it('an id it never issued names no stream', async () => {
    const store = new BoundedEventStore();
    expect(await store.getStreamIdForEventId('garbage')).toBeUndefined();
    expect((await replay(store, 'garbage')).stream).toBe('');
  });
});
