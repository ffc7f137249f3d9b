import type { CallContext } from '../../../../kernel/call-context';
import type { ChangeTarget } from '../../../../kernel/change-events';
import type { ChangeReacher } from '../../../../kernel/change-reach';
import type { SessionStore } from '../ports/session-store';
import { sessionVisible } from './session-reach';

/** A session's change is within reach when the session is (its workspacePath under the caller's roots). */
export class SessionChangeReach implements ChangeReacher {
  readonly kind = 'session' as const;
  constructor(private readonly store: SessionStore) {}

  async inReach(target: ChangeTarget, ctx: CallContext): Promise<boolean> {
    return sessionVisible(await this.store.load(target.id), ctx);
  }
}
