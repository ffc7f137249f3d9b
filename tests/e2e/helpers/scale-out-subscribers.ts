import type { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport as LegacyTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpSubscription } from '@modelcontextprotocol/client';
import { waitFor } from './http-server';
import { connectModernHttp, type ModernConn } from './modern-client';
import { connectLegacy, pause } from './scale-out';

/**
 * The scale-out tests' subscribers (tests/e2e/scale-out*.test.ts): a modern one (SDK v2, a listen stream) and a
 * legacy one (SDK v1, resources/subscribe on its session), each listening again — or reconnecting — when its stream
 * ends, and the check that every subscriber hears every later change. (Instances, callers and traffic: scale-out.ts.)
 */

/** A client listening to `uris`; counts the updates it hears and listens again (or reconnects) when its stream ends. */
export interface Subscriber {
  readonly era: 'modern' | 'legacy';
  /** Updates heard per URI. */
  readonly heard: Map<string, number>;
  /** Times the subscription had to be opened again. */
  reopened: number;
  /** Resolves when the subscription is open now (after any re-open). */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

export class ModernSubscriber implements Subscriber {
  readonly era = 'modern';
  readonly heard = new Map<string, number>();
  reopened = -1;
  private sub?: McpSubscription;
  private conn?: ModernConn;
  private open = false;
  private stopped = false;
  private readonly loop: Promise<void>;

  constructor(
    private readonly url: string,
    private readonly uris: string[],
  ) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        this.conn = await connectModernHttp(this.url);
        this.conn.client.setNotificationHandler('notifications/resources/updated', async (n: { params: { uri: string } }) => {
          this.heard.set(n.params.uri, (this.heard.get(n.params.uri) ?? 0) + 1);
        });
        this.sub = await this.conn.client.listen({ resourceSubscriptions: this.uris });
        this.open = true;
        this.reopened++;
        await this.sub.closed;
      } catch {
        // The instance was down: listen again.
      }
      this.open = false;
      await this.conn?.close().catch(() => undefined);
      if (!this.stopped) await pause(200);
    }
  }

  ready(): Promise<void> {
    return waitFor('a modern subscription open', () => this.open).then(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.sub?.close().catch(() => undefined);
    await this.conn?.close().catch(() => undefined);
    await this.loop;
  }
}

/**
 * A legacy subscriber: `resources/subscribe` on its session, updates on its GET stream. Its liveness is checked by a
 * ping every 300 ms; a failed one (the session's instance died) opens a new session and subscribes again.
 */
export class LegacySubscriber implements Subscriber {
  readonly era = 'legacy';
  readonly heard = new Map<string, number>();
  reopened = -1;
  private conn?: { client: LegacyClient; transport: LegacyTransport };
  private open = false;
  private stopped = false;
  private readonly loop: Promise<void>;

  constructor(
    private readonly url: string,
    private readonly uris: string[],
  ) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        let streaming = false;
        this.conn = await connectLegacy(this.url, () => (streaming = true));
        this.conn.client.setNotificationHandler(ResourceUpdatedNotificationSchema, async (n) => {
          this.heard.set(n.params.uri, (this.heard.get(n.params.uri) ?? 0) + 1);
        });
        for (const uri of this.uris) await this.conn.client.subscribeResource({ uri });
        await waitFor('the legacy GET stream open', () => streaming, 10_000);
        this.open = true;
        this.reopened++;
        while (!this.stopped) {
          await pause(300);
          await this.conn.client.ping({ timeout: 2000 });
        }
      } catch {
        // Its instance died: a new session, subscribed again.
      }
      this.open = false;
      await this.conn?.client.close().catch(() => undefined);
      if (!this.stopped) await pause(200);
    }
  }

  ready(): Promise<void> {
    return waitFor('a legacy subscription open', () => this.open).then(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }
}

/**
 * Every subscriber hears every change made from now on: `changes` changes, one at a time, each heard by all before the
 * next is made (`change(i)` makes the i-th and names the URI it updates).
 */
export async function expectEveryLaterChangeHeard(subscribers: Subscriber[], changes: number, change: (i: number) => Promise<string>): Promise<void> {
  for (const s of subscribers) await s.ready();
  for (let i = 0; i < changes; i++) {
    const before = subscribers.map((s) => new Map(s.heard));
    const uri = await change(i);
    await waitFor(`change ${i} (${uri}) heard by every subscriber`, () => subscribers.every((s, k) => (s.heard.get(uri) ?? 0) > (before[k]!.get(uri) ?? 0)));
  }
}
