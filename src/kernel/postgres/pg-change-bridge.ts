import type { ChangeEvent, ChangeEvents } from '../change-events';
import type { Logger } from '../logger';
import type { PgDatabase } from './pg-database';

/** The channel every PostgreSQL store notifies on, in the transaction of its change (delivered on commit). */
export const CHANGE_CHANNEL = 'workgraph_changes';

/**
 * Live changes across hosts: LISTENs on {@link CHANGE_CHANNEL} with a dedicated connection and publishes every
 * notification into this process's change events — the same events MCP resource subscriptions and the dashboard
 * consume. In PostgreSQL mode the stores publish only through the database (their own process hears its changes back
 * this way too), so every subscriber sees each change once, whichever host made it. A lost connection is re-opened
 * with backoff (1 s doubling to 10 s); changes made while it was down are not replayed (subscribers re-read on the
 * next event).
 */
export class PgChangeBridge {
  private closed = false;
  private client?: Awaited<ReturnType<PgDatabase['connect']>>;
  private retryMs = 1_000;
  private timer?: NodeJS.Timeout;
  /** Resolves once the first LISTEN is in place (or failed). */
  readonly ready: Promise<void>;

  constructor(private readonly db: PgDatabase, private readonly events: ChangeEvents, private readonly logger?: Logger) {
    this.ready = this.listen();
  }

  private async listen(): Promise<void> {
    if (this.closed) return;
    try {
      const client = await this.db.connect();
      this.client = client;
      client.on('notification', (msg) => {
        if (msg.channel !== CHANGE_CHANNEL || !msg.payload) return;
        const event = parseEvent(msg.payload);
        if (event) this.events.publish(event);
      });
      const lost = () => {
        if (this.client !== client) return;
        this.client = undefined;
        client.release(true);
        this.schedule();
      };
      client.on('error', lost);
      client.on('end', lost);
      await client.query(`LISTEN ${CHANGE_CHANNEL}`);
      this.retryMs = 1_000;
    } catch (e) {
      this.logger?.warn('cannot listen for database changes; retrying', { err: (e as Error).message });
      this.schedule();
    }
  }

  private schedule(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.listen();
    }, this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(this.retryMs * 2, 10_000);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    if (client) {
      await client.query(`UNLISTEN ${CHANGE_CHANNEL}`).catch(() => undefined);
      client.release();
    }
  }
}

function parseEvent(payload: string): ChangeEvent | undefined {
  try {
    const e = JSON.parse(payload) as ChangeEvent;
    if (e && typeof e.id === 'string' && ['session', 'tasks', 'knowledge', 'graph-run'].includes(e.kind)) return e;
  } catch {
    /* not one of ours */
  }
  return undefined;
}
