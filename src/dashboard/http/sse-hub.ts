import type { ServerResponse } from 'node:http';
import type { ChangeEvent } from '../../kernel/change-events';
import { ReachRouter, type ChangeReacher } from '../../kernel/change-reach';
import { LOCAL_IDENTITY, type Identity } from '../../kernel/identity';

/**
 * Server-sent events to every open dashboard page: `event: change` with the change event as JSON — each page only
 * the changes within the reach of the identity its token opened it with (kernel/change-reach.ts): a page of one
 * identity hears nothing of another's tasks, sessions, knowledge or graph runs.
 */
export class SseHub {
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
    res.write('retry: 2000\n: connected\n\n');
    this.open.add(res);
    const remove = this.clients.add(res, identity);
    res.on('close', () => {
      this.open.delete(res);
      remove();
    });
  }

  /** Sends the change to the pages whose identity reaches it; resolves when sent. */
  publish(event: ChangeEvent): Promise<void> {
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
