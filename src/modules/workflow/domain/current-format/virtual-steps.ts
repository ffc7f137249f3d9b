import { isPlainObject } from '../context-path';
import type { AssessmentDefinition, AuditConfig, AuditRubricItem, ParallelDelegation, PromptStep, SynthesisConfig, VerificationConfig } from '../types';
import type { RenderProblem } from './prompt-blocks';

/*
 * WorkRail's auto-injected steps (its compiler's expandVirtualSteps, matched here): after a step that names
 * `verification`, a step `<id>__verification` titled `Verify: <title>`; after `audit`, `<id>__audit` titled
 * `Audit: <title>`; after a parallel step's `synthesis`, `<id>__synthesis` titled `Synthesis: <title>`. In that order,
 * each with the parent's runCondition and notesOptional. They expand after templateCalls (a routine step's verification
 * becomes `<caller>.<step>__verification`) and inside inline loop bodies (completionIds `loop[i].<id>__verification`);
 * a loop body that names a top-level step by id cannot carry them (WorkRail refuses that too).
 */

/** The suffixes of the virtual steps' ids. */
export const VIRTUAL_SUFFIX = { verification: '__verification', audit: '__audit', synthesis: '__synthesis' } as const;

/** Default levels of a rubric dimension given as plain text, lowest first; the bar is the highest. */
export const DEFAULT_AUDIT_LEVELS = ['fail', 'partial', 'pass'];

/** What expanding one step gives: the steps to put after it, and the assessments its audit defines. */
export interface VirtualExpansion {
  steps: PromptStep[];
  assessments: AssessmentDefinition[];
}

/** The virtual steps that follow `step` (compiled, id final), with every problem found at `pointer`. */
export function virtualStepsAfter(step: PromptStep, raw: Record<string, unknown>, pointer: string, problems: RenderProblem[]): VirtualExpansion {
  const out: VirtualExpansion = { steps: [], assessments: [] };
  const common = (suffix: string, title: string) => ({
    id: `${step.id}${suffix}`,
    title: `${title}: ${step.title}`,
    ...(step.runCondition !== undefined ? { runCondition: step.runCondition } : {}),
    notesOptional: true,
  });
  if (raw.verification !== undefined) {
    const v = (isPlainObject(raw.verification) ? raw.verification : {}) as VerificationConfig;
    const command = typeof v.command === 'string' ? v.command.trim() : '';
    if (!command) {
      problems.push({
        pointer: `${pointer}/verification`,
        message: `step '${step.id}': verification needs a command (the shell command that proves the step's deliverables, e.g. "npm test"); WorkRail's command-less verification is refused because nothing would check it`,
      });
    } else {
      out.steps.push({
        ...common(VIRTUAL_SUFFIX.verification, 'Verify'),
        prompt: v.prompt ?? agentVerificationPrompt(command),
        virtual: { kind: 'verification', parentStepId: step.id, command, ...(v.prompt ? { prompt: v.prompt } : {}), ...(v.timeout_ms ? { timeoutMs: v.timeout_ms } : {}) },
      });
    }
  }
  if (raw.audit !== undefined) {
    const a = (isPlainObject(raw.audit) ? raw.audit : {}) as AuditConfig;
    const { definition, bars, lines } = auditAssessment(`${step.id}${VIRTUAL_SUFFIX.audit}`, step.title, a.rubric ?? [], pointer, problems);
    const rubricText = lines.length ? `\n\nAssert the output against the following rubric (rate each dimension in a wr.assessment artifact):\n${lines.join('\n')}` : '';
    const prompt = a.prompt
      ? `${a.prompt}${rubricText}`
      : `Audit the results of step '${step.title}'. Ensure all work is complete, correct, and meets high-quality standards.${rubricText}\n\nConfirm if the audit passed or if changes/corrections are required.`;
    out.steps.push({
      ...common(VIRTUAL_SUFFIX.audit, 'Audit'),
      prompt,
      ...(definition.dimensions.length ? { assessmentRefs: [definition.id] } : {}),
      virtual: { kind: 'audit', parentStepId: step.id, assessmentId: definition.id, bars },
    });
    if (definition.dimensions.length) out.assessments.push(definition);
  }
  if (raw.synthesis !== undefined && raw.type === 'parallel') {
    const s = (isPlainObject(raw.synthesis) ? raw.synthesis : {}) as SynthesisConfig;
    out.steps.push({
      ...common(VIRTUAL_SUFFIX.synthesis, 'Synthesis'),
      prompt: s.prompt ?? 'Synthesize and merge the parallel execution outputs from the subagent sessions. Resolve any contradictions and produce a unified report.',
      ...(s.outputContract ? { outputContract: s.outputContract } : {}),
      virtual: { kind: 'synthesis', parentStepId: step.id, delegations: Array.isArray(step.parallelDelegations) ? step.parallelDelegations : [] },
    });
  }
  return out;
}

/** WorkRail's verification prompt when the file gives none (the agent runs the command). */
export function agentVerificationPrompt(command: string): string {
  return `Run the following verification command to assert correctness:\n\n\`\`\`bash\n${command}\n\`\`\`\n\nEnsure that the command succeeds and report any failures.`;
}

/** The result slot of each delegation of a parallel step: `<parentId>.<workflowId>`, numbered when a workflow repeats. */
export function resultSlots(parentStepId: string, delegations: readonly ParallelDelegation[]): string[] {
  const seen = new Map<string, number>();
  for (const d of delegations) seen.set(d.workflowId, (seen.get(d.workflowId) ?? 0) + 1);
  const count = new Map<string, number>();
  return delegations.map((d) => {
    const k = (count.get(d.workflowId) ?? 0) + 1;
    count.set(d.workflowId, k);
    return (seen.get(d.workflowId) ?? 0) > 1 ? `${parentStepId}.${d.workflowId}#${k}` : `${parentStepId}.${d.workflowId}`;
  });
}

function auditAssessment(
  id: string,
  title: string,
  rubric: readonly AuditRubricItem[],
  pointer: string,
  problems: RenderProblem[],
): { definition: AssessmentDefinition; bars: Record<string, string>; lines: string[] } {
  const dimensions: AssessmentDefinition['dimensions'] = [];
  const bars: Record<string, string> = {};
  const lines: string[] = [];
  rubric.forEach((item, k) => {
    const dimId = typeof item === 'string' ? `r${k + 1}` : String(item?.id ?? `r${k + 1}`);
    const criterion = typeof item === 'string' ? item : String(item?.criterion ?? '');
    const levels = typeof item !== 'string' && Array.isArray(item?.levels) && item.levels.length >= 2 ? item.levels.map(String) : DEFAULT_AUDIT_LEVELS;
    const bar = typeof item !== 'string' && typeof item?.bar === 'string' ? item.bar : levels[levels.length - 1];
    if (!levels.includes(bar)) {
      problems.push({ pointer: `${pointer}/audit/rubric/${k}/bar`, message: `audit dimension '${dimId}' has bar '${bar}', which is not one of its levels (${levels.join(', ')})` });
    }
    if (dimensions.some((d) => d.id === dimId)) {
      problems.push({ pointer: `${pointer}/audit/rubric/${k}/id`, message: `audit dimension id '${dimId}' is used twice` });
      return;
    }
    dimensions.push({ id: dimId, purpose: criterion, levels });
    bars[dimId] = bar;
    lines.push(`- \`${dimId}\`: ${criterion} (levels, lowest first: ${levels.join(' | ')}; at least \`${bar}\` to pass)`);
  });
  return { definition: { id, purpose: `Audit of step '${title}'`, dimensions }, bars, lines };
}

/**
 * The dimensions of an audit rated below their bar, from the levels the assessment gave. Empty when the audit passes.
 */
export function dimensionsBelowBar(definition: AssessmentDefinition, bars: Record<string, string>, levels: Record<string, string>): { id: string; level: string; bar: string; criterion?: string }[] {
  const below: { id: string; level: string; bar: string; criterion?: string }[] = [];
  for (const d of definition.dimensions) {
    const bar = bars[d.id];
    const level = levels[d.id];
    if (bar === undefined || level === undefined) continue;
    if (d.levels.indexOf(level) < d.levels.indexOf(bar)) below.push({ id: d.id, level, bar, ...(d.purpose ? { criterion: d.purpose } : {}) });
  }
  return below;
}
