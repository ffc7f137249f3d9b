import { inject, injectable } from 'tsyringe';
import { requireSessionVisible, sessionVisible } from '../../services/session-reach';
import { WorkflowTokens } from '../../workflow.tokens';
import type { CallContext } from '../../../../../kernel/call-context';
import type { UseCase } from '../../../../../kernel/use-case';
import { rankSessions, type SessionSummary } from '../../../domain/sessions';
import { SessionEngine } from '../../services/session-engine';
import type { ToolInput, ToolOutput } from '../../../../../kernel/tools/tool-schema';
import type { workflowResumeSchemas } from '../../workflow-session.tool-schemas';

/** The tool's input, as its schema describes it. */
export type ResumeSessionsInput = ToolInput<typeof workflowResumeSchemas>;


/** The tool's answer, as its output schema describes it. */
export type ResumeSessionsOutput = ToolOutput<typeof workflowResumeSchemas>;
/**
 * One session to pick up: why it ranked here, a fresh token for its head, its current step (the engine's, as
 * workflow_next hands it out) and the last notes of the run.
 */
export type ResumeCandidate = ResumeSessionsOutput['candidates'][number];

/**
 * workflow_resume: sessions ranked for picking up again (same workspace and branch first, then text match of goal and
 * notes, then recency; only unfinished ones unless `status` asks), each with a fresh token and its current step.
 * The ranking reads the index only; just the returned candidates are opened.
 */
@injectable()
export class ResumeSessions implements UseCase<ResumeSessionsInput, ResumeSessionsOutput> {
  constructor(@inject(WorkflowTokens.SessionEngine) private readonly engine: SessionEngine) {}

  async execute(input: ResumeSessionsInput, ctx?: CallContext): Promise<ResumeSessionsOutput> {
    const limit = Math.min(Math.max(input.limit ?? 5, 1), 50);
    let picked: Array<{ summary: SessionSummary | undefined; sessionId: string; reasons: string[] }>;
    if (input.sessionId) picked = [{ summary: undefined, sessionId: input.sessionId, reasons: ['named'] }];
    else {
      const workspacePath = await this.engine.workspaceOf(input.workspacePath, ctx);
      const statuses = input.status === undefined ? undefined : Array.isArray(input.status) ? input.status : [input.status];
      const visible = (await this.engine.store.list()).filter((s) => sessionVisible(s, ctx));
      const ranked = rankSessions(visible, { query: input.query, workspacePath, gitBranch: input.gitBranch, statuses }, limit);
      picked = ranked.map((r) => ({ summary: r.summary, sessionId: r.summary.sessionId, reasons: r.reasons }));
    }
    const candidates: ResumeCandidate[] = [];
    for (const p of picked) {
      const state = await this.engine.store.load(p.sessionId);
      requireSessionVisible(state, ctx);
      const workflow = await this.engine.workflowOf(state);
      const a = this.engine.engineAnswer(workflow, state.head.completedSteps, state.head.context);
      candidates.push({
        sessionId: state.sessionId,
        workflowId: state.workflowId,
        ...(state.goal !== undefined ? { goal: state.goal } : {}),
        status: state.status,
        ...(state.workspacePath !== undefined ? { workspacePath: state.workspacePath } : {}),
        ...(state.gitBranch !== undefined ? { gitBranch: state.gitBranch } : {}),
        updatedAt: state.updatedAt,
        reasons: p.reasons,
        continueToken: await this.engine.tokens.sign({ kind: 'resume', sessionId: state.sessionId, node: state.head.node }),
        step: a.step,
        guidance: {
          prompt: a.step ? this.engine.sessionPrompt(a) : this.engine.completePrompt(workflow, state.summary ?? 'complete'),
        },
        context: a.context,
        recap: state.head.recentNotes,
        completedSteps: state.head.completedSteps.length,
        workflow: await this.engine.workflowInfo(state),
      });
    }
    return { candidates };
  }
}
