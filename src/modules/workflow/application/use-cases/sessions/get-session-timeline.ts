import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../../workflow.tokens';
import type { UseCase } from '../../../../../kernel/use-case';
import type { SessionEvent, SessionStatus, StepPointer } from '../../../domain/sessions';
import type { DamagedLine } from '../../ports/session-store';
import { SessionEngine, type PinnedWorkflowInfo } from '../../services/session-engine';
import type { ToolInput, ToolOutput } from '../../../../../kernel/tools/tool-schema';
import type { workflowSessionSchemas } from '../../workflow-session.tool-schemas';

/** The tool's input, as its schema describes it. */
export type GetSessionTimelineInput = ToolInput<typeof workflowSessionSchemas>;

/** One entry of the timeline: the event as logged (a fork's copied state left out), numbered from 1. */
export type TimelineEntry = { seq: number; kind: string; at: string } & Record<string, unknown>;

export interface SessionTimeline {
  sessionId: string;
  workflow: PinnedWorkflowInfo;
  goal?: string;
  workspacePath?: string;
  gitBranch?: string;
  status: SessionStatus;
  step: StepPointer | null;
  completedSteps: string[];
  context: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
  forks: number;
  checkpoints: number;
  events: TimelineEntry[];
  /** Log lines that could not be read (e.g. cut by a crash): skipped, shown here. */
  damaged: DamagedLine[];
}

/** workflow_session: a session's whole timeline, for people and the dashboard. */
@injectable()
export class GetSessionTimeline implements UseCase<GetSessionTimelineInput, ToolOutput<typeof workflowSessionSchemas>> {
  constructor(@inject(WorkflowTokens.SessionEngine) private readonly engine: SessionEngine) {}

  async execute(input: GetSessionTimelineInput): Promise<SessionTimeline> {
    const state = await this.engine.store.load(input.sessionId);
    const { events, damaged } = await this.engine.store.history(input.sessionId);
    return {
      sessionId: state.sessionId,
      workflow: await this.engine.workflowInfo(state),
      ...(state.goal !== undefined ? { goal: state.goal } : {}),
      ...(state.workspacePath !== undefined ? { workspacePath: state.workspacePath } : {}),
      ...(state.gitBranch !== undefined ? { gitBranch: state.gitBranch } : {}),
      status: state.status,
      step: state.head.current,
      completedSteps: state.head.completedSteps,
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
