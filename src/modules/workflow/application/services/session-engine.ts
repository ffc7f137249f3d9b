import { createHash } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../workflow.tokens';
import { Tokens } from '../../../../kernel/tokens';
import type { AppConfig } from '../../../../kernel/config/app-config';
import type { CallContext } from '../../../../kernel/call-context';
import { resolveNextStep, type ResolvedStep } from '../../domain/step-resolution';
import { isPlainObject } from '../../domain/context-path';
import type { Workflow } from '../../domain/types';
import { stableStringify, type Blocker, type NodeState, type RunningVerification, type SessionState, type StepPointer } from '../../domain/sessions';
import { buildSessionCompleteGuidance, buildSessionStepGuidance, workflowChangedNote, workflowUnloadableNote } from '../../domain/guidance';
import type { WorkflowStorage } from '../ports/workflow-storage';
import type { SessionStore } from '../ports/session-store';
import type { SessionTokens } from '../ports/session-tokens';
import { WORKSPACE_SOURCE, type WorkspaceWorkflowCatalogs } from '../ports/workspace-workflows';
import { ConditionEvaluator } from './condition-evaluator';
import { ValidationEngine } from './validation-engine';
import { StepOutputChecker } from './step-output-checker';
import { nextStep, type GetNextStepOutput, type NextStepVerification } from './next-step-engine';
import { VerificationService, type StillRunning, type VerificationOutcome } from './verification-service';
import type { VerificationMode } from '../../domain/verification-guidance';
import { findStep } from '../../domain/step-lookup';
import type { PromptStep, VirtualStepInfo } from '../../domain/types';
import { ENGINE_KEY } from '../../domain/current-format/compile';
import { InvalidArgumentsError } from '../../../../kernel/errors';

/** The agent's output for a step. */
export interface SessionOutput {
  notesMarkdown?: string;
  artifacts?: unknown[];
}

/** Which workflow version a session runs, and whether the file has changed since. */
export interface PinnedWorkflowInfo {
  id: string;
  version: string;
  hash: string;
  /** True when the workflow as loaded now differs from the pinned one (the session keeps running the pinned one). */
  newerVersionAvailable: boolean;
  note?: string;
}

/** The engine's view of one node: the step it hands out (or completion), with the prompt and the context. */
export interface NodeAnswer {
  step: ResolvedStep | null;
  notes: string[];
  isComplete: boolean;
  context: Record<string, unknown>;
}

/** How many pinned workflows stay parsed in memory (by content hash). */
const PINNED_CACHE = 64;

/**
 * What the session use cases share: the pinned workflow of a session (parsed once per content hash), the engine's
 * answer for a node (the same pure function workflow_next uses), output checks, hashes and tokens.
 */
@injectable()
export class SessionEngine {
  private readonly pinned = new Map<string, Workflow>();
  private readonly currentHashes = new WeakMap<Workflow, string>();

  constructor(
    @inject(WorkflowTokens.WorkflowStorage) readonly storage: WorkflowStorage,
    @inject(WorkflowTokens.SessionStore) readonly store: SessionStore,
    @inject(WorkflowTokens.SessionTokens) readonly tokens: SessionTokens,
    @inject(WorkflowTokens.ConditionEvaluator) private readonly conditions: ConditionEvaluator,
    @inject(WorkflowTokens.ValidationEngine) private readonly validation: ValidationEngine,
    @inject(Tokens.Config) private readonly config: AppConfig,
    @inject(WorkflowTokens.StepOutputChecker) private readonly outputs: StepOutputChecker,
    @inject(WorkflowTokens.VerificationService) readonly verifier: VerificationService,
    @inject(WorkflowTokens.WorkspaceCatalogs, { isOptional: true }) private readonly workspaces?: WorkspaceWorkflowCatalogs,
  ) {}

  /** How this caller's verification steps in this session are answered: run by the server, or by the agent (why). */
  async verificationMode(state: SessionState, ctx: CallContext | undefined): Promise<VerificationMode> {
    const p = await this.verifier.policy(state.workspacePath, ctx);
    return p.server ? { server: true } : { server: false, reason: p.reason };
  }

  /** The verification info of a step pointer (undefined unless it is a verification step). */
  verificationOf(workflow: Workflow, pointer: StepPointer | null | undefined): Extract<VirtualStepInfo, { kind: 'verification' }> | undefined {
    if (!pointer || !pointer.stepId.endsWith('__verification')) return undefined;
    const v = (findStep(workflow, pointer.completionId)?.step as PromptStep | undefined)?.virtual;
    return v?.kind === 'verification' ? v : undefined;
  }

  /**
   * Runs (or hands to the agent) the verification of a session's step at `node`: the server runs the command in the
   * session's workspace when this caller may have it run there. One run per session point at a time in this process.
   */
  async verify(
    info: Extract<VirtualStepInfo, { kind: 'verification' }>,
    state: SessionState,
    node: number,
    step: { completionId: string; stepId: string },
    ctx: CallContext,
    waitMs = Infinity,
  ): Promise<VerificationOutcome | StillRunning> {
    const p = await this.verifier.policy(state.workspacePath, ctx);
    if (!p.server) return this.verifier.agentOutcome(info, p.reason);
    // The run is recorded in the session's store while it goes on (running-verification.ts): a server that dies
    // mid-run leaves the record for the next one, which kills what is left and records the attempt as interrupted.
    const id = state.sessionId;
    const fixed = { node, completionId: step.completionId, stepId: step.stepId, parentStepId: info.parentStepId, command: info.command, cwd: p.cwd };
    let record: RunningVerification | undefined;
    let pgidWritten: Promise<void> = Promise.resolve();
    const outcome = await this.verifier.runFor(info, p.cwd, ctx, `session\u0000${id}\u0000${node}`, waitMs, {
      beforeStart: async (run) => {
        record = { ...fixed, ...run };
        await this.store.setRunningVerification(id, record);
      },
      started: (pgid) => {
        // Best effort (the marker finds the processes anyway); awaited below, so it never lands after the record's removal.
        if (record) pgidWritten = this.store.setRunningVerification(id, { ...record, pgid }).catch(() => undefined);
      },
    });
    if ('running' in outcome) return outcome;
    await pgidWritten;
    return outcome;
  }

  /**
   * The engine's answer for a node: workflow_next's own entry point (the same step shape, prompt sections, contracts
   * and assessments), with `output` for the step being completed (current format) — `blocked`/`blockers` included.
   */
  engineAnswer(workflow: Workflow, completedSteps: readonly string[], context: Record<string, unknown>, output?: unknown, verification?: NextStepVerification): GetNextStepOutput {
    return nextStep(workflow, completedSteps, context, output, this.conditions, this.outputs, { trusted: true, ...(verification ? { verification } : {}) });
  }

  /** The engine memory (loop-control decisions, follow-ups, accepted outputs) a context carries, as a context patch. */
  engineMemoryPatch(context: Record<string, unknown>): Record<string, unknown> {
    return context[ENGINE_KEY] !== undefined ? { [ENGINE_KEY]: context[ENGINE_KEY] } : {};
  }

  /** Session guidance from the engine's prompt: its "When done" part says to call workflow_continue instead. */
  sessionPrompt(answer: GetNextStepOutput, notes: readonly string[] = []): string {
    return answer.step ? buildSessionStepGuidance(answer.guidance.prompt, answer.step, notes) : answer.guidance.prompt;
  }

  /** The largest `artifacts` of one output, as JSON bytes (--session-artifacts-mb; default 1 MiB). */
  get artifactsMaxBytes(): number {
    return this.config.sessions.artifactsMaxBytes ?? 1024 * 1024;
  }

  get maxBlockedAttempts(): number {
    return this.config.sessions.maxBlockedAttempts;
  }

  /** The canonical text and content hash a workflow is pinned by. */
  pin(workflow: Workflow): { text: string; hash: string } {
    const text = stableStringify(workflow);
    return { text, hash: sha256(text) };
  }

  /** The workflow a session runs: its pinned text, parsed once per hash. */
  async workflowOf(state: SessionState): Promise<Workflow> {
    const hit = this.pinned.get(state.workflowHash);
    if (hit) return hit;
    const workflow = JSON.parse(await this.store.pinnedWorkflow(state.sessionId)) as Workflow;
    if (this.pinned.size >= PINNED_CACHE) this.pinned.delete(this.pinned.keys().next().value as string);
    this.pinned.set(state.workflowHash, workflow);
    return workflow;
  }

  /** Compares the pinned hash with the workflow as the storage serves it now. */
  async workflowInfo(state: SessionState): Promise<PinnedWorkflowInfo> {
    const info: PinnedWorkflowInfo = { id: state.workflowId, version: state.workflowVersion, hash: state.workflowHash, newerVersionAvailable: false };
    try {
      // A session running its workspace's own workflow compares with that file, not with the configured sources.
      const storage =
        state.workflowSource === WORKSPACE_SOURCE && state.workspacePath !== undefined && this.workspaces
          ? await this.workspaces.forWorkspace(state.workspacePath)
          : this.storage;
      const now = await storage.get(state.workflowId);
      let hash = this.currentHashes.get(now);
      if (!hash) {
        hash = this.pin(now).hash;
        this.currentHashes.set(now, hash);
      }
      if (hash !== state.workflowHash) {
        info.newerVersionAvailable = true;
        info.note = workflowChangedNote(state.workflowId, now.version, state.workflowVersion);
      }
    } catch (e) {
      info.note = workflowUnloadableNote(state.workflowId, (e as Error).message);
    }
    return info;
  }

  /** The step a node hands out (a pure function of the workflow, its completed steps and its context). */
  answer(workflow: Workflow, completedSteps: readonly string[], context: Record<string, unknown>): NodeAnswer {
    const r = resolveNextStep(workflow, completedSteps, context, this.conditions.forFormat(workflow.format));
    return { step: r.step, notes: r.notes, isComplete: r.isComplete, context: r.context };
  }

  answerNode(workflow: Workflow, node: NodeState): NodeAnswer {
    return this.answer(workflow, node.completedSteps, node.context);
  }

  /**
   * Checks an output against the step's validationCriteria: the notes (or, without notes, the first artifact) are
   * what the rules read. Returns the blockers; none means it passes.
   */
  check(step: ResolvedStep, output: SessionOutput | undefined, context: Record<string, unknown>): Blocker[] {
    if (step.validationCriteria === undefined) return [];
    const notes = output?.notesMarkdown;
    const subject = notes !== undefined && notes !== '' ? notes : output?.artifacts?.length ? output.artifacts[0] : '';
    const pointer = notes !== undefined && notes !== '' ? '/notesMarkdown' : output?.artifacts?.length ? '/artifacts/0' : '/notesMarkdown';
    const result = this.validation.validate(step.validationCriteria, subject, context);
    if (result.valid) return [];
    return result.issues.map((issue, i) => ({
      code: 'validation_failed',
      pointer,
      message: issue,
      ...(result.suggestions[i] ? { expected: result.suggestions[i] } : {}),
    }));
  }

  completePrompt(workflow: Workflow, summary: string): string {
    return buildSessionCompleteGuidance(workflow.name ?? workflow.id, summary);
  }

  /** The hash that recognises the same call made twice (output and context patch). */
  outputHash(output: SessionOutput | undefined, contextPatch: Record<string, unknown> | undefined): string {
    return sha256(stableStringify({ output: output ?? null, context: contextPatch ?? null })).slice(0, 32);
  }

  /**
   * The workspace a session is tied to: the one given, else the calling client's first MCP root (from this call's
   * context — never process-wide state), else none.
   */
  async workspaceOf(given: string | undefined, ctx: CallContext | undefined): Promise<string | undefined> {
    if (given !== undefined && given !== '') return trimSeparators(given);
    const roots = ctx?.clientRoots ? await ctx.clientRoots().catch(() => undefined) : undefined;
    return roots?.length ? trimSeparators(roots[0]) : undefined;
  }
}

export function pointerOf(step: { id: string; title: string; completionId: string } | null): StepPointer | null {
  return step ? { completionId: step.completionId, stepId: step.id, title: step.title } : null;
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

export function checkContext(context: unknown, field = 'context'): Record<string, unknown> | undefined {
  if (context === undefined || context === null) return undefined;
  if (!isPlainObject(context)) throw new InvalidArgumentsError(`${field} must be an object`, field);
  return context;
}

function trimSeparators(p: string): string {
  return p.length > 1 ? p.replace(/[\\/]+$/, '') : p;
}
