import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../../workflow.tokens';
import type { UseCase } from '../../../../../kernel/use-case';
import { InvalidArgumentsError } from '../../../../../kernel/errors';
import type { SessionStore } from '../../ports/session-store';
import type { ToolInput, ToolOutput } from '../../../../../kernel/tools/tool-schema';
import type { workflowSessionsSchemas } from '../../workflow-session.tool-schemas';

/** The tool's input, as its schema describes it. */
export type ListSessionsInput = ToolInput<typeof workflowSessionsSchemas>;


/** The tool's answer, as its output schema describes it: a page of sessions, the total and the next page's cursor. */
export type ListSessionsOutput = ToolOutput<typeof workflowSessionsSchemas>;
/** One session of the page. */
export type SessionListEntry = ListSessionsOutput['sessions'][number];

/** workflow_sessions: a page of sessions from the index, most recently updated first. */
@injectable()
export class ListSessions implements UseCase<ListSessionsInput, ListSessionsOutput> {
  constructor(@inject(WorkflowTokens.SessionStore) private readonly store: SessionStore) {}

  async execute(input: ListSessionsInput): Promise<ListSessionsOutput> {
    const limit = Math.min(Math.max(input.limit ?? 50, 1), 500);
    const offset = input.cursor === undefined ? 0 : Number(input.cursor);
    if (!Number.isInteger(offset) || offset < 0) throw new InvalidArgumentsError('cursor: expected the nextCursor of a previous workflow_sessions answer', 'cursor');
    const statuses = input.status === undefined ? undefined : Array.isArray(input.status) ? input.status : [input.status];
    const all = await this.store.list({ statuses, workflowId: input.workflowId, workspacePath: input.workspacePath });
    const page = all.slice(offset, offset + limit).map((s) => ({
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
    }));
    return { sessions: page, total: all.length, ...(offset + limit < all.length ? { nextCursor: String(offset + limit) } : {}) };
  }
}
