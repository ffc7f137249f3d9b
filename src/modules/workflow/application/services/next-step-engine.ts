import { InvalidArgumentsError } from '../../../../kernel/errors';
import { isPlainObject } from '../../domain/context-path';
import {
  auditSentBackText,
  buildBlockedSection,
  buildCompletionGuidance,
  buildStepGuidance,
  currentFormatSections,
} from '../../domain/guidance';
import { verificationFailedMessage, verificationFailedSection, verificationTaskText, type VerificationMode } from '../../domain/verification-guidance';
import { resolveNextStep, type NextStepResult, type ResolvedStep } from '../../domain/step-resolution';
import { completionIdPatterns, unknownCompletionIds } from '../../domain/completion-id-check';
import { findStep } from '../../domain/step-lookup';
import { ENGINE_KEY } from '../../domain/current-format/compile';
import { needsOutput } from '../../domain/current-format/output-check';
import { assessmentAnswers, contractAnswer, type AssessmentAnswer, type ContractAnswer } from '../../domain/current-format/answer-parts';
import type { PromptStep, Workflow } from '../../domain/types';
import { VIRTUAL_SUFFIX } from '../../domain/current-format/virtual-steps';
import type { VerificationOutcome } from './verification-service';
import type { ConditionEvaluator } from './condition-evaluator';
import type { StepOutputChecker } from './step-output-checker';
import type { StaticAnswer, ToolOutput } from '../../../../kernel/tools/tool-schema';
import type { workflowNextSchemas } from '../workflow.tool-schemas';
import type { returnedStep } from '../workflow-step.schemas';

/*
 * The workflow_next engine: (workflow, completedSteps, context, output) → answer, shared by the stateless tool
 * (use-cases/get-next-step.ts, which runs verification commands first) and the durable sessions (session-engine.ts).
 * No I/O.
 */

/**
 * The step as the answer carries it (workflow_next's `returnedStep`, declared in workflow-step.schemas.ts): the
 * structured fields an agent acts on. Its text (role, prompt, guidance) is in `guidance.prompt` only, so every answer
 * carries it once.
 */
export type StepAnswer = StaticAnswer<typeof returnedStep>;

/**
 * The tool's answer, as its output schema describes it (the session tools answer through it too). `context` is the
 * plain object the engine always returns (the schema leaves its contents open).
 */
export type GetNextStepOutput = Omit<ToolOutput<typeof workflowNextSchemas>, 'context'> & { context: Record<string, unknown> };

/** What the engine remembers in the returned context (`context.__workgraph`) for current-format workflows. */
interface EngineMemory {
  /** loop step id → the latest loop-control decision. */
  loopControl?: Record<string, 'continue' | 'stop'>;
  /** completionId → true once its follow-up was handed out (the next output is accepted whatever its levels). */
  followups?: Record<string, true>;
  /** The completionId whose output was last accepted: calling again without output does not block it. */
  accepted?: string;
}

/** What the caller of {@link nextStep} knows about verification steps (it runs their commands; the engine does no I/O). */
export interface NextStepVerification {
  /** How a verification step handed out is answered: run by the server, or handed to the agent. */
  mode?: VerificationMode;
  /** The outcome of the verification step being completed (the last completionId), when the caller ran (or handed) it. */
  outcome?: VerificationOutcome;
  /** Texts read from the answer of workflow_next (stateless) rather than the sessions'. */
  stateless?: boolean;
}

export interface NextStepOptions {
  trusted?: boolean;
  verification?: NextStepVerification;
}

/**
 * The engine's entry point, reusable by callers that hold the workflow already (durable sessions): a function of
 * (workflow, completedSteps, context, output) → answer, `blocked` and `blockers` included. No I/O.
 */
export function nextStep(
  workflow: Workflow,
  completed: readonly string[],
  context: Record<string, unknown>,
  output: unknown,
  conditions: ConditionEvaluator,
  outputs: StepOutputChecker,
  opts: NextStepOptions = {},
): GetNextStepOutput {
  const v = opts.verification ?? {};
  // A session's own list was handed out by this engine step by step (checked as it grew): checking it again on
  // every call would cost O(its length).
  if (!opts.trusted) assertKnownCompletionIds(workflow, completed);
  const evaluate = conditions.forFormat(workflow.format);
  if (workflow.format !== 'current') {
    if (output !== undefined) {
      throw new InvalidArgumentsError(`output is read for current-format workflows only; '${workflow.id}' is a classic workflow (check output with workflow_validate)`, 'output');
    }
    return answer(workflow, resolveNextStep(workflow, completed, context, evaluate), {}, v);
  }

  const memory = memoryOf(context);
  const last = completed[completed.length - 1];
  const lookup = last !== undefined ? findStep(workflow, last) : undefined;
  const step = lookup?.step as PromptStep | undefined;
  const verifying = step?.virtual?.kind === 'verification' && v.outcome !== undefined && memory.accepted !== last;
  const mustCheck = lookup && step && (step as { type?: string }).type !== 'loop' && (verifying || output !== undefined || (needsOutput(step) && memory.accepted !== last));
  if (!mustCheck) return answer(workflow, resolveNextStep(workflow, completed, context, evaluate), {}, v);

  const again = () => resolveNextStep(workflow, completed.slice(0, -1), context, evaluate);
  if (verifying && step.virtual?.kind === 'verification') {
    const o = v.outcome as VerificationOutcome;
    const shown = verificationAnswer(o);
    if (o.ranBy === 'server' && !o.verified) {
      const blockers = [{ code: 'verification_failed' as const, pointer: '/verification', message: verificationFailedMessage(o) }];
      return answer(workflow, again(), { blocked: true, blockers, verification: shown }, v, [verificationFailedSection(o, step.virtual.prompt)]);
    }
    // Verified by the server, or handed to the agent (recorded unverified): the step is done.
    return answer(workflow, resolveNextStep(workflow, completed, withEngineMemory(context, { ...memory, accepted: last }), evaluate), { verification: shown }, v);
  }

  const verdict = outputs.check(workflow, lookup, output);
  if (verdict.blockers.length > 0) {
    const schemaId = verdict.blockers.some((b) => b.code.startsWith('contract')) ? step.outputContract?.contractRef : undefined;
    const schema = schemaId ? outputs.contracts.schema(schemaId) : undefined;
    return answer(workflow, again(), { blocked: true, blockers: verdict.blockers, ...(schema ? { contractSchema: schema } : {}) }, v);
  }
  if (verdict.sendBack) {
    // The audit found the audited step below its bar: back to that step (its verification and audit follow again).
    const prefix = last.slice(0, last.length - step.id.length);
    const to = `${prefix}${verdict.sendBack.parentStepId}`;
    const removed = [to, `${to}${VIRTUAL_SUFFIX.verification}`, last].filter((c) => completed.includes(c));
    const remaining = completed.filter((c) => !removed.includes(c));
    const parentTitle = findStep(workflow, to)?.step.title ?? verdict.sendBack.parentStepId;
    const note = auditSentBackText(parentTitle, verdict.sendBack.below, verdict.sendBack.note);
    const followup = v.stateless ? `${note}\n\nRemove ${removed.map((r) => `"${r}"`).join(', ')} from completedSteps before you call workflow_next again.` : note;
    const withMemory = withEngineMemory(context, { ...memory, accepted: undefined });
    return answer(workflow, resolveNextStep(workflow, remaining, withMemory, evaluate), { followup, sentBack: { to, removeFromCompletedSteps: removed, note } }, v);
  }
  const remembered: EngineMemory = { ...memory, accepted: last };
  if (verdict.loopDecision) remembered.loopControl = { ...memory.loopControl, [verdict.loopDecision.loopStepId]: verdict.loopDecision.decision };
  if (verdict.followup && !memory.followups?.[last]) {
    // The follow-up is handed out once per completionId; the redone step's next output is accepted as it is.
    const withMemory = withEngineMemory(context, { ...remembered, accepted: undefined, followups: { ...memory.followups, [last]: true } });
    return answer(workflow, resolveNextStep(workflow, completed.slice(0, -1), withMemory, evaluate), { followup: verdict.followup }, v);
  }
  return answer(workflow, resolveNextStep(workflow, completed, withEngineMemory(context, remembered), evaluate), {}, v);
}

/** A verification outcome as answers carry it. */
export function verificationAnswer(o: VerificationOutcome): NonNullable<GetNextStepOutput['verification']> {
  // The run id is the session log's (it ties the event to the running record), not the agent's business.
  const { runId: _runId, ...shown } = o;
  return shown;
}

function answer(workflow: Workflow, result: NextStepResult, extra: Partial<GetNextStepOutput>, v: NextStepVerification, more: string[] = []): GetNextStepOutput {
  if (!result.step) {
    return { step: null, guidance: { prompt: buildCompletionGuidance(workflow, result.notes) }, isComplete: result.isComplete, context: result.context, ...extra };
  }
  const contract = workflow.format === 'current' ? contractAnswer(result.step) : undefined;
  const assessments = workflow.format === 'current' ? assessmentAnswers(workflow, result.step) : undefined;
  const sections = workflow.format === 'current' ? currentFormatSections(result.step, contract, assessments) : [];
  if (extra.blockers) sections.unshift(buildBlockedSection(extra.blockers), ...more);
  const virtual = result.step.virtual;
  if (virtual?.kind === 'verification') {
    // The task text depends on who runs the command: the server (here, now) or the agent (WorkRail's way).
    const mode = v.mode ?? { server: false, reason: 'no_workspace' };
    const text = verificationTaskText(virtual.command, mode, result.step.extras?.prompt ?? result.step.prompt, virtual.prompt, v.stateless ?? false);
    result = { ...result, step: { ...result.step, ...(result.step.extras ? { extras: { ...result.step.extras, prompt: text } } : { prompt: text }) } };
  }
  const step = result.step as NonNullable<NextStepResult['step']>;
  const prompt = buildStepGuidance(step, result.notes, {
    followup: extra.followup,
    sections,
    sendsOutput: contract !== undefined || assessments !== undefined,
  });
  const out = stepAnswer(step, contract, assessments);
  if (virtual?.kind === 'verification') {
    const mode = v.mode ?? { server: false, reason: 'no_workspace' };
    out.verificationCommand = { command: virtual.command, runsOn: mode.server ? 'server' : 'agent', ...(mode.server ? {} : { reason: mode.reason }), ...(virtual.timeoutMs ? { timeoutMs: virtual.timeoutMs } : {}) };
  }
  return { step: out, guidance: { prompt }, isComplete: false, context: result.context, ...extra };
}

export function memoryOf(context: Record<string, unknown>): EngineMemory {
  const m = context[ENGINE_KEY];
  return isPlainObject(m) ? (m as EngineMemory) : {};
}

function withEngineMemory(context: Record<string, unknown>, memory: EngineMemory): Record<string, unknown> {
  const clean = Object.fromEntries(Object.entries(memory).filter(([, v]) => v !== undefined));
  return { ...context, [ENGINE_KEY]: clean };
}

/**
 * @throws InvalidArgumentsError naming the completion ids that name no step of the workflow and listing the valid
 *   ones: an ignored typo would silently hand out the same step again.
 */
export function assertKnownCompletionIds(workflow: Workflow, completed: readonly string[]): void {
  const unknown = unknownCompletionIds(workflow, completed);
  if (unknown.length === 0) return;
  const valid = completionIdPatterns(workflow);
  const shown = valid.length > 40 ? `${valid.slice(0, 40).join(', ')}, … (${valid.length - 40} more)` : valid.join(', ');
  throw new InvalidArgumentsError(
    `completedSteps has unknown completionId${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `'${u}'`).join(', ')} for workflow '${workflow.id}'; valid completionIds (i = iteration from 0): ${shown}`,
    'completedSteps',
  );
}

export function stepAnswer(step: ResolvedStep, contract: ContractAnswer | undefined, assessments: AssessmentAnswer[] | undefined): StepAnswer {
  const out: StepAnswer = { id: step.id, title: step.title, completionId: step.completionId };
  if (step.loop) out.loop = step.loop;
  if (step.askForFiles) out.askForFiles = true;
  if (step.extras) {
    if (step.extras.confirmation) {
      out.requireConfirmation = true;
      out.confirmation = step.extras.confirmation;
    }
  } else if (step.requireConfirmation === true) {
    out.requireConfirmation = true;
  }
  if (step.validationCriteria !== undefined) out.hasValidation = true;
  if (contract) out.outputContract = contract;
  if (assessments) out.assessments = assessments;
  if (step.extras?.delegations) out.delegations = step.extras.delegations;
  if (step.extras?.synthesis) out.delegations = step.extras.synthesis;
  if (step.extras && step.extras.fragments.length > 0) out.fragments = step.extras.fragments;
  return out;
}
