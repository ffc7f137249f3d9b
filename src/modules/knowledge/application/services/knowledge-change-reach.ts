import type { CallContext } from '../../../../kernel/call-context';
import type { ChangeTarget } from '../../../../kernel/change-events';
import type { ChangeReacher } from '../../../../kernel/change-reach';
import type { KnowledgeStore } from '../ports/knowledge-store';
import { projectInReach } from './knowledge-reach';

/** A knowledge project's change is within reach when the project is (its folder, or its owning identity). */
export class KnowledgeChangeReach implements ChangeReacher {
  readonly kind = 'knowledge' as const;
  constructor(private readonly store: KnowledgeStore) {}

  inReach(target: ChangeTarget, ctx: CallContext): Promise<boolean> {
    return projectInReach(this.store, target.project ?? target.id, ctx);
  }
}
