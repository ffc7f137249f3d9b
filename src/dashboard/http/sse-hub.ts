import type { ServerResponse } from 'node:http';
import type { ChangeEvent } from '../../kernel/change-events';

/** Server-sent events to every open dashboard page: `event: change` with the change event as JSON. */
export class SseHub {
  private readonly clients = new Set<ServerResponse>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(heartbeatMs = 20_000) {
    // A comment line now and then keeps proxies from closing an idle stream.
    this.heartbeat = setInterval(() => this.write(': keep-alive\n\n'), heartbeatMs);
    this.heartbeat.unref();
  }

  add(res: ServerResponse): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write('retry: 2000\n: connected\n\n');
    this.clients.add(res);
    res.on('close', () => this.clients.delete(res));
  }

  publish(event: ChangeEvent): void {
    this.write(`event: change\ndata: ${JSON.stringify(event)}\n\n`);
  }

  get size(): number {
    return this.clients.size;
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const c of this.clients) c.end();
    this.clients.clear();
  }

  private write(chunk: string): void {
    for (const c of this.clients) c.write(chunk);
  }
}
