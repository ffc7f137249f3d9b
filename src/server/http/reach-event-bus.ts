import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server';
import type { ChangeEvent } from '../../kernel/change-events';
import { ReachRouter, type ChangeReacher } from '../../kernel/change-reach';
import { LOCAL_IDENTITY, type Identity } from '../../kernel/identity';

type Listener = (event: ServerEvent) => void;

/**
 * The `subscriptions/listen` bus of the modern HTTP entry, with each listener's identity: the SDK's listen router
 * subscribes one listener per open stream while serving the listen request, inside {@link ReachEventBus.runAs} of
 * that request's identity; a change to a record is delivered (as `resources/updated` plus `resources/list_changed`)
 * only to listeners whose identity reaches it (kernel/change-reach.ts), so one identity's listener hears nothing of
 * another's sessions, task graphs or knowledge. Tool and prompt list changes concern everyone and go to every
 * listener; the SDK still filters each stream by what it asked for.
 */
export class ReachEventBus implements ServerEventBus {
  private readonly current = new AsyncLocalStorage<Identity>();
  private readonly listeners = new Set<Listener>();
  private readonly router: ReachRouter<Listener>;

  constructor(reachers: () => readonly ChangeReacher[]) {
    this.router = new ReachRouter(reachers);
  }

  /** Runs `fn` (a request's handling) as `identity`: listeners it subscribes belong to it. */
  runAs<T>(identity: Identity, fn: () => T): T {
    return this.current.run(identity, fn);
  }

  publish(event: ServerEvent): void {
    for (const l of [...this.listeners]) deliver(l, event);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    const remove = this.router.add(listener, this.current.getStore() ?? LOCAL_IDENTITY);
    return () => {
      this.listeners.delete(listener);
      remove();
    };
  }

  /** Announces a change of the resource `uri` (and of `also`: its parts, a knowledge graph's nodes) to the listeners whose identity reaches it. */
  publishChange(change: ChangeEvent, uri: string, also: readonly string[] = []): Promise<void> {
    return this.router.route(change, (l) => {
      deliver(l, { kind: 'resource_updated', uri });
      for (const part of also) deliver(l, { kind: 'resource_updated', uri: part });
      // The resource list is the sessions, task graphs and knowledge graphs: a change may be a new one. (Not a graph
      // run's: its record is saved every ~250 ms while it runs.)
      if (change.kind !== 'graph-run') deliver(l, { kind: 'resources_list_changed' });
    });
  }

  get size(): number {
    return this.listeners.size;
  }
}

function deliver(l: Listener, event: ServerEvent): void {
  try {
    l(event);
  } catch {
    // A broken stream is the listen router's to close; the others still hear.
  }
}
