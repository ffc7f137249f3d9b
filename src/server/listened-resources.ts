import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import type { ChangeEvents, ChangeTarget } from '../kernel/change-events';
import { ResourceLimitError } from '../kernel/errors';
import { toJsonRpcError } from './error-mapper';
import { knowledgeProjectOf } from './knowledge-resources';

/**
 * What the open `subscriptions/listen` streams of the modern era name in `resourceSubscriptions`, for the two things
 * the SDK's listen router cannot do alone (it delivers exactly the URIs published onto it):
 * - **other processes' changes** in file mode: while a stream names a resource, its target is watched
 *   (`ChangeEvents.watch`: the data dir's file for it), so a change another process makes to the same data dir is
 *   published here and reaches the stream — as `resources/subscribe` does in the legacy era. PostgreSQL hears every
 *   instance's changes anyway (its adapter has no `watch`).
 * - **knowledge node URIs** (`workgraph://knowledge/<project>/nodes/<id>`): a knowledge change names its project only,
 *   so it is announced for every node URI of that project some stream names.
 * One per modern HTTP entry (every stream of the process) and one per modern stdio connection.
 */
export class ListenedResources {
  /** Node URIs named by open streams, with how many name each. */
  private readonly nodeUris = new Map<string, number>();

  constructor(
    private readonly changeEvents: ChangeEvents | undefined,
    /** The change target a resource URI names, when it is one this server serves. */
    private readonly targetOf: (uri: string) => ChangeTarget | undefined,
    /** The most resources one stream may name (`--max-subscriptions`, as for a legacy session's subscriptions). */
    private readonly max: number,
  ) {}

  /**
   * The answer refusing a listen request that names more resources than one stream may (`resource_limit`), or
   * undefined when it may be served.
   */
  refusal(id: string | number, uris: readonly string[]): JSONRPCMessage | undefined {
    const count = new Set(uris).size;
    if (count <= this.max) return undefined;
    const e = toJsonRpcError(
      new ResourceLimitError('subscriptions', this.max, `subscriptions/listen: resourceSubscriptions names ${count} resources; one stream may name at most ${this.max} (--max-subscriptions)`),
    );
    return { jsonrpc: '2.0', id, error: { code: e.code, message: e.message, data: e.data } } as JSONRPCMessage;
  }

  /** A stream opened with these URIs; returns the function to call when it ends (idempotent). */
  open(uris: readonly string[]): () => void {
    const stops: Array<() => void> = [];
    const nodes: string[] = [];
    for (const uri of new Set(uris)) {
      const target = this.targetOf(uri);
      if (!target) continue;
      const stop = this.changeEvents?.watch?.(target);
      if (stop) stops.push(stop);
      if (target.kind === 'knowledge' && uri.includes('/nodes/')) {
        nodes.push(uri);
        this.nodeUris.set(uri, (this.nodeUris.get(uri) ?? 0) + 1);
      }
    }
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      for (const stop of stops) stop();
      for (const uri of nodes) {
        const left = (this.nodeUris.get(uri) ?? 1) - 1;
        if (left > 0) this.nodeUris.set(uri, left);
        else this.nodeUris.delete(uri);
      }
    };
  }

  /** The node URIs of `project` some open stream names. */
  nodeUrisOf(project: string): string[] {
    const out: string[] = [];
    for (const uri of this.nodeUris.keys()) if (knowledgeProjectOf(uri) === project) out.push(uri);
    return out;
  }
}

/** The URIs a `subscriptions/listen` request names, or undefined when the message is not one. */
export function listenedUris(message: unknown): string[] | undefined {
  const m = message as { method?: unknown; id?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } } | null;
  if (!m || m.method !== 'subscriptions/listen' || m.id === undefined) return undefined;
  const uris = m.params?.notifications?.resourceSubscriptions;
  return Array.isArray(uris) ? uris.filter((u): u is string => typeof u === 'string') : [];
}

/**
 * A connection's listen streams (modern stdio): a `subscriptions/listen` request opens one, its response (the stream's
 * end), a `notifications/cancelled` naming it or the transport's close ends it. Wraps the transport's `onmessage`,
 * `send` and `onclose`: call it once the protocol side has set them.
 */
export function trackListens(transport: Transport, listened: ListenedResources): void {
  const open = new Map<string | number, () => void>();
  const end = (id: unknown) => {
    const close = open.get(id as string | number);
    if (!close) return;
    open.delete(id as string | number);
    close();
  };
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    const uris = listenedUris(message);
    const id = (message as { id?: string | number }).id;
    if (uris && id !== undefined) {
      const refused = listened.refusal(id, uris);
      if (refused) return void transport.send(refused).catch(() => undefined);
      end(id);
      open.set(id, listened.open(uris));
    }
    const m = message as { method?: string; params?: { requestId?: unknown } };
    if (m.method === 'notifications/cancelled') end(m.params?.requestId);
    deliver?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    const m = message as { id?: string | number; method?: string };
    if (m.method === undefined && m.id !== undefined) end(m.id);
    return send(message, options);
  };
  const onclose = transport.onclose;
  transport.onclose = () => {
    for (const id of [...open.keys()]) end(id);
    onclose?.();
  };
}
