import { inject, injectable } from 'tsyringe';
import { InvalidArgumentsError } from '../../../../../kernel/errors';
import type { CallContext } from '../../../../../kernel/call-context';
import { requireSessionVisible } from '../../services/session-reach';
import { WorkflowTokens } from '../../workflow.tokens';
import type { UseCase } from '../../../../../kernel/use-case';
import { sessionProgress, type SessionEvent } from '../../../domain/sessions';
import { SessionEngine } from '../../services/session-engine';
import type { ToolInput, ToolOutput } from '../../../../../kernel/tools/tool-schema';
import type { workflowSessionSchemas } from '../../workflow-session.tool-schemas';

/** The tool's input, as its schema describes it. */
export type GetSessionTimelineInput = ToolInput<typeof workflowSessionSchemas>;

/** One entry of the timeline: the event as logged (a fork's copied state left out), numbered from 1. */
export type TimelineEntry = { seq: number; kind: string; at: string } & Record<string, unknown>;

type DeclaredTimeline = ToolOutput<typeof workflowSessionSchemas>;
/**
 * The tool's answer, as its output schema describes it. Two fields say more than the schema: `context` is the
 * session's plain object, and each event keeps every field it was logged with (the schema names the three all share).
 */
export type SessionTimeline = Omit<DeclaredTimeline, 'context' | 'events'> & { context: Record<string, unknown>; events: TimelineEntry[] };

/** Events per page unless the caller says, and the bytes of events one page stops at (at least one event). */
export const TIMELINE_PAGE_EVENTS = 200;
export const TIMELINE_PAGE_BYTES = 4 * 1024 * 1024;

/** workflow_session: a session's timeline, page by page (cursor), for people and the dashboard. */
@injectable()
export class GetSessionTimeline implements UseCase<GetSessionTimelineInput, SessionTimeline> {
  constructor(@inject(WorkflowTokens.SessionEngine) private readonly engine: SessionEngine) {}

  async execute(input: GetSessionTimelineInput, ctx?: CallContext): Promise<SessionTimeline> {
    const state = await this.engine.store.load(input.sessionId);
    requireSessionVisible(state, ctx);
    const { events, damaged } = await this.engine.store.history(input.sessionId);
    // Counted over the workflow the session runs (its pinned copy), not the file as it may read now.
    const workflow = await this.engine.workflowOf(state);
    return {
      sessionId: state.sessionId,
      workflow: await this.engine.workflowInfo(state),
      ...(state.goal !== undefined ? { goal: state.goal } : {}),
      ...(state.workspacePath !== undefined ? { workspacePath: state.workspacePath } : {}),
      ...(state.gitBranch !== undefined ? { gitBranch: state.gitBranch } : {}),
      status: state.status,
      step: state.head.current,
      completedSteps: state.head.completedSteps,
      progress: sessionProgress(workflow, state.head.completedSteps, state.head.current),
      context: state.head.context,
      createdAt: state.createdAt,
      updatedAt: state.updatedAt,
      ...(state.completedAt !== undefined ? { completedAt: state.completedAt } : {}),
      forks: state.forks,
      checkpoints: state.checkpoints.length,
      ...page(events, input.cursor, input.limit),
      damaged,
    };
  }
}

/** The events after `cursor` (a seq), at most `limit` of them and about {@link TIMELINE_PAGE_BYTES}; `nextCursor` when more follow. */
function page(events: readonly SessionEvent[], cursor: string | undefined, limit = TIMELINE_PAGE_EVENTS): { events: TimelineEntry[]; totalEvents: number; nextCursor?: string } {
  if (cursor !== undefined && !/^[0-9]{1,12}$/.test(cursor)) throw new InvalidArgumentsError(`cursor: expected the nextCursor of a previous answer (digits), got '${cursor}'`, 'cursor');
  const after = cursor === undefined ? 0 : Number(cursor);
  const out: TimelineEntry[] = [];
  let bytes = 0;
  let i = after;
  for (; i < events.length && out.length < limit; i++) {
    const entry = timelineEntry(events[i]!, i + 1);
    const size = Buffer.byteLength(JSON.stringify(entry));
    if (out.length > 0 && bytes + size > TIMELINE_PAGE_BYTES) break;
    out.push(entry);
    bytes += size;
  }
  return { events: out, totalEvents: events.length, ...(i < events.length ? { nextCursor: String(i) } : {}) };
}

function timelineEntry(e: SessionEvent, seq: number): TimelineEntry {
  if (e.kind === 'forked') {
    const { state, ...rest } = e;
    return { seq, ...rest, step: state.current };
  }
  return { seq, ...e };
}
