import { inject, injectable } from 'tsyringe';
import { requireWorkspaceInReach } from '../../services/session-reach';
import { WorkflowTokens } from '../../workflow.tokens';
import { Tokens } from '../../../../../kernel/tokens';
import type { Clock } from '../../../../../kernel/clock';
import { actorOf, type CallContext } from '../../../../../kernel/call-context';
import type { UseCase } from '../../../../../kernel/use-case';
import { foldSessionEvent, sessionProgress, summarizeRun, type SessionStartedEvent } from '../../../domain/sessions';
import { checkContext, pointerOf, SessionEngine } from '../../services/session-engine';
import { nodeAnswer, type SessionAnswer } from './session-answer';
import { PruneSessions } from './prune-sessions';
import type { Logger } from '../../../../../kernel/logger';
import type { ToolInput, ToolOutput } from '../../../../../kernel/tools/tool-schema';
import type { workflowStartSchemas } from '../../workflow-session.tool-schemas';
import type { ReferenceChecker } from '../../ports/reference-checker';
import { flagReferences } from '../../services/reference-flags';
import { WorkspaceWorkflows } from '../../services/workspace-workflows';
import { WORKSPACE_SOURCE } from '../../ports/workspace-workflows';

/** Retention runs at most this often per process, after a session starts (never delaying the answer). */
const AUTO_PRUNE_EVERY_MS = 6 * 3_600_000;

/** The tool's input, as its schema describes it. */
export type StartSessionInput = ToolInput<typeof workflowStartSchemas>;

/**
 * workflow_start: finds the workflow (the workspace's own first, when the workspace is in the caller's reach), pins it by content hash, creates the session (folder, first event, snapshot, index
 * entry) and hands out the first step with a continue token and a checkpoint token of the very beginning.
 */
@injectable()
export class StartSession implements UseCase<StartSessionInput, ToolOutput<typeof workflowStartSchemas>> {
  private lastPrune = -Infinity;

  constructor(
    @inject(WorkflowTokens.SessionEngine) private readonly engine: SessionEngine,
    @inject(Tokens.Clock) private readonly clock: Clock,
    @inject(WorkflowTokens.PruneSessions) private readonly prune: PruneSessions,
    @inject(Tokens.Logger) private readonly logger: Logger,
    @inject(WorkflowTokens.ReferenceChecker, { isOptional: true }) private readonly references?: ReferenceChecker,
    @inject(WorkflowTokens.WorkspaceWorkflows, { isOptional: true }) private readonly workspaces?: WorkspaceWorkflows,
  ) {}

  /** Completed sessions past the retention are removed in the background; unfinished ones are never touched here. */
  private autoPrune(): void {
    const now = this.clock.now();
    if (now - this.lastPrune < AUTO_PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    void this.prune
      .execute({})
      .then((r) => r.removed.length && this.logger.info('pruned completed sessions past the retention', { removed: r.removed.length }))
      .catch((e) => this.logger.warn('session retention failed; it is tried again later', { err: (e as Error).message }));
  }

  async execute(input: StartSessionInput, ctx?: CallContext): Promise<SessionAnswer> {
    const context = checkContext(input.context) ?? {};
    const workspacePath = await this.engine.workspaceOf(input.workspacePath, ctx);
    requireWorkspaceInReach(workspacePath, ctx);
    // The workspace's own workflows (.workrail/workflows, .workgraph/workflows) when it lies in the caller's reach.
    const catalog = this.workspaces ? await this.workspaces.catalogFor(workspacePath, ctx, 'workspacePath', false) : { storage: this.engine.storage, warnings: [] };
    const located = await catalog.storage.locate(input.workflowId);
    const { workflow, file } = located;
    const { text, hash } = this.engine.pin(workflow);
    // The session runs the pinned text from now on: parse it back so even the first answer comes from it.
    const pinned = JSON.parse(text) as typeof workflow;
    const first = this.engine.answer(pinned, [], context);
    const event: SessionStartedEvent = {
      kind: 'session_started',
      at: new Date(this.clock.now()).toISOString(),
      actor: actorOf(ctx),
      sessionId: this.engine.tokens.newSessionId(),
      workflowId: workflow.id,
      workflowVersion: workflow.version,
      workflowHash: hash,
      ...(located.source === WORKSPACE_SOURCE ? { workflowSource: WORKSPACE_SOURCE } : {}),
      ...(input.goal ? { goal: input.goal } : {}),
      ...(workspacePath ? { workspacePath } : {}),
      ...(input.gitBranch ? { gitBranch: input.gitBranch } : {}),
      context,
      next: pointerOf(first.step),
    };
    let state = await this.engine.store.create(event, text);
    if (first.isComplete) {
      // A workflow with no eligible step is complete at once; the log says so.
      state = await this.engine.store.update(state.sessionId, async (s) => {
        const done = { kind: 'session_completed' as const, at: event.at, actor: actorOf(ctx), node: 0, summary: summarizeRun([event], [], sessionProgress(workflow, [], null)) };
        return { events: [done], result: foldSessionEvent(s, done) };
      });
    }
    this.autoPrune();
    const checkpointToken = await this.engine.tokens.sign({ kind: 'checkpoint', sessionId: state.sessionId, node: 0 });
    // The session's workspace is where its `workspace` references resolve; missing ones are said once, here.
    const references = await flagReferences(this.references, workflow, file, workspacePath);
    const warnings = [...catalog.warnings, ...WorkspaceWorkflows.shadowWarning(located), ...(references.warnings ?? [])];
    return nodeAnswer(this.engine, pinned, state, state.head, 'started', { checkpointToken, ...(warnings.length > 0 ? { warnings } : {}) }, { ctx });
  }
}
