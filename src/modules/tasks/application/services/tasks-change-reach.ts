import type { CallContext } from '../../../../kernel/call-context';
import type { ChangeTarget } from '../../../../kernel/change-events';
import type { ChangeReacher } from '../../../../kernel/change-reach';
import { reachOf } from '../../../../kernel/reach';
import type { TaskGraphStore } from '../ports/task-graph-store';

/** A task project's change is within reach when the project is (its project_root under the caller's roots). */
export class TasksChangeReach implements ChangeReacher {
  readonly kind = 'tasks' as const;
  constructor(private readonly store: TaskGraphStore) {}

  async inReach(target: ChangeTarget, ctx: CallContext): Promise<boolean> {
    const graph = await this.store.load(target.project ?? target.id);
    return graph !== undefined && reachOf(ctx).covers(graph.project_root);
  }
}
