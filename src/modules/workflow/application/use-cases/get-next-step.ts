import { inject, injectable } from 'tsyringe';
import { WorkflowTokens } from '../workflow.tokens';
import { CancelledError, InvalidArgumentsError } from '../../../../kernel/errors';
import { noopCallContext, type CallContext } from '../../../../kernel/call-context';
import { forEachStep } from '../../domain/workflow-index';
import { isPlainObject } from '../../domain/context-path';
import { verificationCancelled, type VerificationMode } from '../../domain/verification-guidance';
import { findStep } from '../../domain/step-lookup';
import type { PromptStep, Workflow } from '../../domain/types';
import type { VerificationService } from '../services/verification-service';
import type { UseCase } from '../../../../kernel/use-case';
import { WorkspaceWorkflows } from '../services/workspace-workflows';
import type { WorkflowStorage } from '../ports/workflow-storage';
import { ConditionEvaluator } from '../services/condition-evaluator';
import { StepOutputChecker } from '../services/step-output-checker';
import { assertKnownCompletionIds, memoryOf, nextStep, type GetNextStepOutput, type NextStepVerification } from '../services/next-step-engine';
import type { ToolInput } from '../../../../kernel/tools/tool-schema';
import type { workflowNextSchemas } from '../workflow.tool-schemas';

/** The tool's input, as its schema describes it. */
export type GetNextStepInput = ToolInput<typeof workflowNextSchemas>;

/**
 * workflow_next: the next step of a workflow, a pure function of (workflow, completedSteps, context, output). For
 * current-format workflows the output of the step being completed is checked against its contract and assessments:
 * falling short answers `blocked` with that step again; a triggered assessment consequence answers that step again
 * with the follow-up; a loop-control decision is remembered in the returned context.
 */
@injectable()
export class GetNextStep implements UseCase<GetNextStepInput, GetNextStepOutput> {
  constructor(
    @inject(WorkflowTokens.WorkflowStorage) private readonly storage: WorkflowStorage,
    @inject(WorkflowTokens.ConditionEvaluator) private readonly conditions: ConditionEvaluator,
    @inject(WorkflowTokens.StepOutputChecker) private readonly outputs: StepOutputChecker,
    @inject(WorkflowTokens.VerificationService) private readonly verifier: VerificationService,
    @inject(WorkflowTokens.WorkspaceWorkflows, { isOptional: true }) private readonly workspaces?: WorkspaceWorkflows,
  ) {}

  /**
   * @throws NotFoundError / InvalidWorkflowError from storage; InvalidArgumentsError when completedSteps is not a
   *   list of known completion ids, or a loop needs a context variable (forEach items, for count) that is missing.
   */
  async execute(input: GetNextStepInput, ctx: CallContext = noopCallContext()): Promise<GetNextStepOutput> {
    const completed = input.completedSteps ?? [];
    if (!Array.isArray(completed) || completed.some((c) => typeof c !== 'string')) {
      throw new InvalidArgumentsError('completedSteps must be an array of completion id strings', 'completedSteps');
    }
    if (input.context !== undefined && input.context !== null && !isPlainObject(input.context)) {
      throw new InvalidArgumentsError('context must be an object', 'context');
    }
    const storage = this.workspaces ? (await this.workspaces.storageFor(input.workspacePath, ctx)).storage : this.storage;
    const workflow = await storage.get(input.workflowId);
    const context = input.context ?? {};
    if (!hasVerificationSteps(workflow)) return nextStep(workflow, completed, context, input.output, this.conditions, this.outputs);
    assertKnownCompletionIds(workflow, completed);
    const policy = await this.verifier.policy(await workspaceOf(input.workspacePath, ctx), ctx);
    const mode: VerificationMode = policy.server ? { server: true } : { server: false, reason: policy.reason };
    const verification: NextStepVerification = { mode, stateless: true };
    // The verification step being completed: the server runs its command now (or records that the agent does).
    const last = completed[completed.length - 1];
    const step = last !== undefined ? (findStep(workflow, last)?.step as PromptStep | undefined) : undefined;
    if (step?.virtual?.kind === 'verification' && memoryOf(context).accepted !== last) {
      verification.outcome = policy.server
        ? await this.verifier.run(step.virtual, policy.cwd, ctx, `next\u0000${ctx.identity.name}\u0000${workflow.id}\u0000${policy.cwd}\u0000${last}`)
        : this.verifier.agentOutcome(step.virtual, policy.reason);
      if (verification.outcome.cancelled) throw new CancelledError(verificationCancelled(last, true));
    }
    return nextStep(workflow, completed, context, input.output, this.conditions, this.outputs, { trusted: true, verification });
  }
}

/** The folder a stateless call works in: the one given, else the calling client's first MCP root. */
async function workspaceOf(given: string | undefined, ctx: CallContext): Promise<string | undefined> {
  if (given) return given;
  const roots = ctx.clientRoots ? await ctx.clientRoots().catch(() => undefined) : undefined;
  return roots?.[0];
}

const verificationSteps = new WeakMap<Workflow, boolean>();

/** Whether a workflow has any verification step (known once per loaded workflow). */
function hasVerificationSteps(workflow: Workflow): boolean {
  let known = verificationSteps.get(workflow);
  if (known === undefined) {
    known = false;
    if (workflow.format === 'current') forEachStep(workflow.steps, (s) => (known ||= (s as PromptStep).virtual?.kind === 'verification'));
    verificationSteps.set(workflow, known);
  }
  return known;
}
