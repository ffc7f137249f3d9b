import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../../workflow.tokens';
import { Tokens } from '../../../../../kernel/tokens';
import type { Clock } from '../../../../../kernel/clock';
import type { AppConfig } from '../../../../../kernel/config/app-config';
import type { UseCase } from '../../../../../kernel/use-case';
import type { SessionStore } from '../../ports/session-store';

export interface PruneSessionsInput {
  /** Completed sessions completed longer ago than this are removed. Default: the configured retention (30 days). */
  completedOlderThanDays?: number;
  /** Also remove unfinished sessions not updated for `olderThanDays`. Default false: unfinished ones are kept. */
  includeUnfinished?: boolean;
  olderThanDays?: number;
  /** Only report what would be removed. */
  dryRun?: boolean;
}

export interface PruneSessionsOutput {
  removed: Array<{ sessionId: string; status: string; updatedAt: string }>;
  kept: number;
}

const DAY_MS = 86_400_000;

/**
 * Retention: completed sessions go `completedOlderThanDays` after completion; unfinished ones stay unless
 * `includeUnfinished` with `olderThanDays` says otherwise (`workgraph sessions prune`).
 */
@injectable()
export class PruneSessions implements UseCase<PruneSessionsInput, PruneSessionsOutput> {
  constructor(
    @inject(WorkflowTokens.SessionStore) private readonly store: SessionStore,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(Tokens.Config) private readonly config: AppConfig,
  ) {}

  async execute(input: PruneSessionsInput): Promise<PruneSessionsOutput> {
    const now = this.clock.now();
    const completedDays = input.completedOlderThanDays ?? input.olderThanDays ?? this.config.sessions.completedRetentionDays;
    const completedCut = now - completedDays * DAY_MS;
    const unfinishedCut = input.includeUnfinished ? now - (input.olderThanDays ?? completedDays) * DAY_MS : undefined;
    const all = await this.store.list();
    const removed: PruneSessionsOutput['removed'] = [];
    for (const s of all) {
      const old =
        s.status === 'complete'
          ? Date.parse(s.completedAt ?? s.updatedAt) < completedCut
          : unfinishedCut !== undefined && Date.parse(s.updatedAt) < unfinishedCut;
      if (!old) continue;
      if (!input.dryRun && !(await this.store.delete(s.sessionId))) continue;
      removed.push({ sessionId: s.sessionId, status: s.status, updatedAt: s.updatedAt });
    }
    return { removed, kept: all.length - removed.length };
  }
}
