import { noopCallContext, type CallContext } from './call-context';
import type { ChangeEvent, ChangeTarget } from './change-events';
import { hasScope, type Identity } from './identity';

/**
 * Whether a change is within a caller's reach — what a live view may announce to it (MCP resource subscriptions,
 * `subscriptions/listen`, the dashboard's event stream): a change to a record the caller could not read is never
 * announced to it, not even as "the resource list changed" (docs/http.md "What an identity sees"). Each module that
 * publishes changes registers one reacher for its kind under `Tokens.ChangeReachers`; it answers from the record's
 * folder or owner, as the module's read tools do.
 */
export interface ChangeReacher {
  readonly kind: ChangeEvent['kind'];
  /** False for a record that does not exist (any more) too. */
  inReach(target: ChangeTarget, ctx: CallContext): Promise<boolean>;
}

/** An identity not confined to roots and holding `admin` (stdio's local one, a plain token line) reaches everything. */
export function reachesEverything(identity: Identity): boolean {
  return identity.roots === undefined && hasScope(identity, 'admin');
}

/**
 * Whether `target` is within `identity`'s reach. Costs no lookup for an identity that reaches everything; otherwise
 * one read by the kind's reacher (none registered, or a failing read: not in reach).
 */
export async function changeInReach(reachers: () => readonly ChangeReacher[], target: ChangeTarget, identity: Identity): Promise<boolean> {
  if (reachesEverything(identity)) return true;
  const reacher = reachers().find((r) => r.kind === target.kind);
  if (!reacher) return false;
  try {
    return await reacher.inReach(target, noopCallContext(undefined, identity));
  } catch {
    return false;
  }
}

/**
 * Announces one change to many listeners, each with its identity: the reach is asked once per distinct identity
 * (not per listener), and a listener hears the change only when it is within its reach. Listeners of one identity
 * hear changes in the order they were published.
 */
export class ReachRouter<L> {
  private readonly listeners = new Map<L, Identity>();
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly reachers: () => readonly ChangeReacher[]) {}

  add(listener: L, identity: Identity): () => void {
    this.listeners.set(listener, identity);
    return () => this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }

  /** Calls `deliver` for each listener that may hear `event`; returns when every delivery is done. */
  route(event: ChangeEvent, deliver: (listener: L) => void): Promise<void> {
    const groups = new Map<string, { identity: Identity; listeners: L[] }>();
    for (const [listener, identity] of this.listeners) {
      const key = identityKey(identity);
      const g = groups.get(key) ?? { identity, listeners: [] };
      g.listeners.push(listener);
      groups.set(key, g);
    }
    // One delivery after the other, so a slow reach lookup never reorders two changes.
    const run = this.chain.then(async () => {
      for (const { identity, listeners } of groups.values()) {
        if (!(await changeInReach(this.reachers, event, identity))) continue;
        for (const l of listeners) if (this.listeners.has(l)) deliver(l);
      }
    });
    this.chain = run.catch(() => undefined);
    return run;
  }
}

/** Identities with one name share roots and scopes (the token file refuses otherwise). */
function identityKey(identity: Identity): string {
  return `${identity.name}\u0000${(identity.roots ?? []).join(':')}\u0000${identity.scopes.join(',')}`;
}
