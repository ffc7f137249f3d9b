import type { CallContext } from '../../../../kernel/call-context';
import type { ChangeTarget } from '../../../../kernel/change-events';
import type { ChangeReacher } from '../../../../kernel/change-reach';
import { reachOf } from '../../../../kernel/reach';
import type { GraphRunStore } from '../ports/graph-run-store';

/** Runs whose owner is remembered (a run's owner never changes; the oldest is forgotten first). */
const REMEMBERED = 1_000;

/**
 * A graph run's change is within reach of the identity that ran it (and of `admin`). A run still going changes every
 * ~250 ms (its live record), and each change is asked about once per identity listening: its owner is read from the
 * store once, not its whole record on every change.
 */
export class GraphRunChangeReach implements ChangeReacher {
  readonly kind = 'graph-run' as const;
  private readonly owners = new Map<string, string | undefined>();
  constructor(private readonly store: GraphRunStore) {}

  async inReach(target: ChangeTarget, ctx: CallContext): Promise<boolean> {
    return reachOf(ctx).owns(await this.ownerOf(target.id));
  }

  private async ownerOf(runId: string): Promise<string | undefined> {
    if (this.owners.has(runId)) return this.owners.get(runId);
    const owner = (await this.store.get(runId)).actor?.name;
    this.owners.set(runId, owner);
    if (this.owners.size > REMEMBERED) this.owners.delete(this.owners.keys().next().value!);
    return owner;
  }
}
