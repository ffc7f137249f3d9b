import type { ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { ChangeEvent } from '../../kernel/change-events';
import { ReachRouter, type ChangeReacher } from '../../kernel/change-reach';
import { LOCAL_IDENTITY, type Identity } from '../../kernel/identity';

/**
 * The server's change counter as the pages read it: this hub's instance (a dashboard restarted counts from 0 again)
 * and how many change events it has been told of. Every API answer carries it (the `X-Workgraph-Changes` header,
 * `instance:count`, counted before the answer is read) and every stream's first event states it (`event: opened`,
 * `{"instance","count"}`): a page whose data was read at a lower count than its stream opened at re-reads it.
 */
export interface ChangeCount {
  instance: string;
  count: number;
}

/** `instance:count`, the header's form. */
export function changeCountText(c: ChangeCount): string {
  return `${c.instance}:${c.count}`;
}

/**
 * Server-sent events to every open dashboard page: first `event: opened` with the change counter, then `event:
 * change` with each change event as JSON — each page only the changes within the reach of the identity its token
 * opened it with (kernel/change-reach.ts): a page of one identity hears nothing of another's tasks, sessions, knowledge
 * or graph runs (the counter counts every change, so it tells a page how many changes there were, never which).
 */
export class SseHub {
  private readonly instance = randomBytes(6).toString('hex');
  private changes = 0;
  private readonly clients: ReachRouter<ServerResponse>;
  private readonly open = new Set<ServerResponse>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(reachers: () => readonly ChangeReacher[] = () => [], heartbeatMs = 20_000) {
    this.clients = new ReachRouter(reachers);
    // A comment line now and then keeps proxies from closing an idle stream.
    this.heartbeat = setInterval(() => this.write(': keep-alive\n\n'), heartbeatMs);
    this.heartbeat.unref();
  }

  add(res: ServerResponse, identity: Identity = LOCAL_IDENTITY): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    // Counted and registered in one turn of the loop: every change after this count is routed to this page.
    res.write(`retry: 2000\n: connected\nevent: opened\ndata: ${JSON.stringify(this.changeCount)}\n\n`);
    this.open.add(res);
    const remove = this.clients.add(res, identity);
    res.on('close', () => {
      this.open.delete(res);
      remove();
    });
  }

  /** The change counter now (see {@link ChangeCount}). */
  get changeCount(): ChangeCount {
    return { instance: this.instance, count: this.changes };
  }

  /** Counts the change and sends it to the pages whose identity reaches it; resolves when sent. */
  publish(event: ChangeEvent): Promise<void> {
    this.changes++;
    const chunk = `event: change\ndata: ${JSON.stringify(event)}\n\n`;
    return this.clients.route(event, (c) => c.write(chunk));
  }

  get size(): number {
    return this.open.size;
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const c of this.open) c.end();
    this.open.clear();
  }

  private write(chunk: string): void {
    for (const c of this.open) c.write(chunk);
  }
}
