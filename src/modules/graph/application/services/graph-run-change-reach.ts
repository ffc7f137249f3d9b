import type { CallContext } from '../../../../kernel/call-context';
import type { ChangeTarget } from '../../../../kernel/change-events';
import type { ChangeReacher } from '../../../../kernel/change-reach';
import { reachOf } from '../../../../kernel/reach';
import type { GraphRunStore } from '../ports/graph-run-store';

/** A graph run's change is within reach of the identity that ran it (and of `admin`). */
export class GraphRunChangeReach implements ChangeReacher {
  readonly kind = 'graph-run' as const;
  constructor(private readonly store: GraphRunStore) {}

  async inReach(target: ChangeTarget, ctx: CallContext): Promise<boolean> {
    return reachOf(ctx).owns((await this.store.get(target.id)).actor?.name);
  }
}
