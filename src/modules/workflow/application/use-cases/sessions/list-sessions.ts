import { inject, injectable } from 'tsyringe';
import type { CallContext } from '../../../../../kernel/call-context';
import { sessionVisible } from '../../services/session-reach';
import { WorkflowTokens } from '../../workflow.tokens';
import type { UseCase } from '../../../../../kernel/use-case';
import { InvalidArgumentsError } from '../../../../../kernel/errors';
import { sessionProgress, type SessionSummary } from '../../../domain/sessions';
import { SessionEngine } from '../../services/session-engine';
import type { ToolInput, ToolOutput } from '../../../../../kernel/tools/tool-schema';
import type { workflowSessionsSchemas } from '../../workflow-session.tool-schemas';

/** The tool's input, as its schema describes it. */
export type ListSessionsInput = ToolInput<typeof workflowSessionsSchemas>;


/** The tool's answer, as its output schema describes it: a page of sessions, the total and the next page's cursor. */
export type ListSessionsOutput = ToolOutput<typeof workflowSessionsSchemas>;
/** One session of the page. */
export type SessionListEntry = ListSessionsOutput['sessions'][number];

/** How many sessions of a page are opened at once for their progress. */
const PROGRESS_READS_AT_ONCE = 16;

/**
 * workflow_sessions: a page of sessions from the index, most recently updated first, each with its progress (the
 * page's sessions are opened for it: the index holds no completed steps).
 */
@injectable()
export class ListSessions implements UseCase<ListSessionsInput, ListSessionsOutput> {
  constructor(@inject(WorkflowTokens.SessionEngine) private readonly engine: SessionEngine) {}

  private get store() {
    return this.engine.store;
  }

  async execute(input: ListSessionsInput, ctx?: CallContext): Promise<ListSessionsOutput> {
    const limit = Math.min(Math.max(input.limit ?? 50, 1), 500);
    const offset = input.cursor === undefined ? 0 : Number(input.cursor);
    if (!Number.isInteger(offset) || offset < 0) throw new InvalidArgumentsError('cursor: expected the nextCursor of a previous workflow_sessions answer', 'cursor');
    const statuses = input.status === undefined ? undefined : Array.isArray(input.status) ? input.status : [input.status];
    const all = (await this.store.list({ statuses, workflowId: input.workflowId, workspacePath: input.workspacePath })).filter((s) => sessionVisible(s, ctx));
    const slice = all.slice(offset, offset + limit);
    const progress = await this.progressOf(slice);
    const page = slice.map((s, i) => ({
      sessionId: s.sessionId,
      workflowId: s.workflowId,
      workflowVersion: s.workflowVersion,
      ...(s.goal !== undefined ? { goal: s.goal } : {}),
      status: s.status,
      step: s.current,
      ...(s.workspacePath !== undefined ? { workspacePath: s.workspacePath } : {}),
      ...(s.gitBranch !== undefined ? { gitBranch: s.gitBranch } : {}),
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
      ...(s.completedAt !== undefined ? { completedAt: s.completedAt } : {}),
      ...(progress[i] ? { progress: progress[i] } : {}),
    }));
    return { sessions: page, total: all.length, ...(offset + limit < all.length ? { nextCursor: String(offset + limit) } : {}) };
  }

  /** Each session's progress counts; none for a session that cannot be read now (removed meanwhile, damaged). */
  private async progressOf(sessions: readonly SessionSummary[]): Promise<Array<{ done: number; total: number; skipped: number } | undefined>> {
    const out: Array<{ done: number; total: number; skipped: number } | undefined> = new Array(sessions.length);
    for (let i = 0; i < sessions.length; i += PROGRESS_READS_AT_ONCE) {
      await Promise.all(
        sessions.slice(i, i + PROGRESS_READS_AT_ONCE).map(async (s, j) => {
          try {
            const state = await this.store.load(s.sessionId);
            const { done, total, skipped } = sessionProgress(await this.engine.workflowOf(state), state.head.completedSteps, state.head.current);
            out[i + j] = { done, total, skipped };
          } catch {
            out[i + j] = undefined;
          }
        }),
      );
    }
    return out;
  }
}
