import { inject, injectable } from 'tsyringe';
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

/** workflow_session: a session's whole timeline, for people and the dashboard. */
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
      events: events.map((e, i) => timelineEntry(e, i + 1)),
      damaged,
    };
  }
}

function timelineEntry(e: SessionEvent, seq: number): TimelineEntry {
  if (e.kind === 'forked') {
    const { state, ...rest } = e;
    return { seq, ...rest, step: state.current };
  }
  return { seq, ...e };
}
