import { isPlainObject } from '../context-path';
import type { StepLookup } from '../step-lookup';
import type { AssessmentDefinition, PromptStep, Workflow } from '../types';
import { ASSESSMENT_KIND, CONTRACTS, LOOP_CONTROL } from './contracts';
import { dimensionsBelowBar } from './virtual-steps';

/** What the agent sends with workflow_next for the step it just completed. */
export interface StepOutput {
  notesMarkdown?: string;
  artifacts?: unknown[];
}

/** One precise reason an output falls short: a stable code, where (JSON pointer into the call), what, and the expected shape. */
export interface Blocker {
  code:
    | 'output_invalid'
    | 'contract_artifact_missing'
    | 'contract_artifact_invalid'
    | 'assessment_missing'
    | 'assessment_unknown'
    | 'assessment_dimension_missing'
    | 'assessment_level_invalid';
  pointer: string;
  message: string;
  expected?: unknown;
}

/** Schema problems of an artifact against a contract's JSON Schema (pointers relative to the artifact). */
export type ValidateArtifact = (contractId: string, artifact: unknown) => { pointer: string; message: string }[];

export interface OutputVerdict {
  blockers: Blocker[];
  /** The loop-control decision to remember, and for which loop (step id). */
  loopDecision?: { loopStepId: string; decision: 'continue' | 'stop' };
  /** The guidance of the first assessment consequence the levels trigger. */
  followup?: string;
  /** An audit step rated a dimension below its bar: the agent goes back to the audited step. */
  sendBack?: { parentStepId: string; below: { id: string; level: string; bar: string; criterion?: string }[]; note?: string };
}

/** Whether a step's completion needs an output checked: a required contract, or assessments to give. */
export function needsOutput(step: PromptStep): boolean {
  return (step.outputContract !== undefined && step.outputContract.required !== false) || (step.assessmentRefs?.length ?? 0) > 0;
}

/**
 * Checks the output sent for a current-format step against its output contract and its assessments, and says what
 * follows from it. Every problem becomes a blocker naming the field and showing the expected shape (an example
 * artifact, or the allowed levels), so one retry can fix them all.
 */
export function checkStepOutput(workflow: Workflow, lookup: StepLookup, output: unknown, validate: ValidateArtifact): OutputVerdict {
  const step = lookup.step as PromptStep;
  const blockers: Blocker[] = [];
  const verdict: OutputVerdict = { blockers };
  let artifacts: unknown[] = [];
  if (output !== undefined) {
    if (!isPlainObject(output)) {
      blockers.push({ code: 'output_invalid', pointer: '/output', message: 'output must be an object {notesMarkdown?, artifacts?}', expected: { notesMarkdown: '…', artifacts: [] } });
      return verdict;
    }
    if (output.notesMarkdown !== undefined && typeof output.notesMarkdown !== 'string') {
      blockers.push({ code: 'output_invalid', pointer: '/output/notesMarkdown', message: 'notesMarkdown must be a string (markdown)' });
    }
    if (output.artifacts !== undefined && !Array.isArray(output.artifacts)) {
      blockers.push({ code: 'output_invalid', pointer: '/output/artifacts', message: 'artifacts must be an array of objects', expected: [] });
    } else if (Array.isArray(output.artifacts)) {
      artifacts = output.artifacts;
    }
  }

  const contract = step.outputContract;
  if (contract) {
    const info = CONTRACTS[contract.contractRef];
    const index = artifacts.findIndex((a) => isPlainObject(a) && a.kind === info?.kind);
    if (info && index < 0) {
      if (contract.required !== false) {
        blockers.push({
          code: 'contract_artifact_missing',
          pointer: '/output/artifacts',
          message: `step '${step.id}' requires a '${info.kind}' artifact (contract ${info.id}) in output.artifacts; none was sent`,
          expected: info.example,
        });
      }
    } else if (info) {
      const artifact = artifacts[index] as Record<string, unknown>;
      const problems = validate(info.id, artifact);
      for (const p of problems) {
        blockers.push({
          code: 'contract_artifact_invalid',
          pointer: `/output/artifacts/${index}${p.pointer}`,
          message: `${info.kind} artifact: ${p.pointer || '(artifact)'} ${p.message}`,
          expected: info.example,
        });
      }
      if (problems.length === 0 && info.id === LOOP_CONTROL) {
        const loopStepId = loopFor(workflow, lookup, artifact.loopId);
        if (loopStepId) verdict.loopDecision = { loopStepId, decision: artifact.decision as 'continue' | 'stop' };
      }
    }
  }

  const refs = step.assessmentRefs ?? [];
  if (refs.length > 0) {
    const definitions = new Map((workflow.assessments ?? []).map((a) => [a.id, a]));
    const given = artifacts.map((a, i) => ({ a, i })).filter(({ a }) => isPlainObject(a) && a.kind === ASSESSMENT_KIND);
    for (const ref of refs) {
      const def = definitions.get(ref);
      if (!def) continue;
      const match = given.find(({ a }) => (a as Record<string, unknown>).assessmentId === ref) ?? (refs.length === 1 ? given[0] : undefined);
      if (!match) {
        blockers.push({
          code: 'assessment_missing',
          pointer: '/output/artifacts',
          message: `step '${step.id}' asks for assessment '${ref}' (a '${ASSESSMENT_KIND}' artifact); none was sent`,
          expected: exampleAssessment(def),
        });
        continue;
      }
      const levels = checkAssessment(def, match.a as Record<string, unknown>, match.i, blockers);
      if (levels && verdict.followup === undefined) verdict.followup = triggeredFollowup(step, def, levels);
      if (levels && step.virtual?.kind === 'audit' && step.virtual.assessmentId === def.id) {
        const below = dimensionsBelowBar(def, step.virtual.bars, levels);
        const note = isPlainObject(output) && typeof output.notesMarkdown === 'string' ? output.notesMarkdown : undefined;
        if (below.length) verdict.sendBack = { parentStepId: step.virtual.parentStepId, below, ...(note ? { note } : {}) };
      }
    }
    for (const { a, i } of given) {
      const id = (a as Record<string, unknown>).assessmentId;
      if (typeof id === 'string' && !refs.includes(id)) {
        blockers.push({ code: 'assessment_unknown', pointer: `/output/artifacts/${i}/assessmentId`, message: `step '${step.id}' does not ask for assessment '${id}'; it asks for ${refs.map((r) => `'${r}'`).join(', ')}` });
      }
    }
  }
  if (blockers.length > 0) {
    delete verdict.followup;
    delete verdict.sendBack;
  }
  return verdict;
}

/** An assessment artifact that passes: the first level of each dimension (the example every answer carries). */
export function exampleAssessment(def: AssessmentDefinition): Record<string, unknown> {
  return { kind: ASSESSMENT_KIND, assessmentId: def.id, dimensions: Object.fromEntries(def.dimensions.map((d) => [d.id, d.levels[d.levels.length - 1]])) };
}

function checkAssessment(def: AssessmentDefinition, artifact: Record<string, unknown>, index: number, blockers: Blocker[]): Record<string, string> | undefined {
  const dims = artifact.dimensions;
  const at = `/output/artifacts/${index}/dimensions`;
  if (!isPlainObject(dims)) {
    blockers.push({ code: 'assessment_dimension_missing', pointer: at, message: `assessment '${def.id}' needs dimensions {<dimensionId>: <level>}`, expected: exampleAssessment(def).dimensions });
    return undefined;
  }
  const before = blockers.length;
  const levels: Record<string, string> = {};
  for (const d of def.dimensions) {
    const level = dims[d.id];
    if (level === undefined) {
      blockers.push({ code: 'assessment_dimension_missing', pointer: `${at}/${d.id}`, message: `assessment '${def.id}' needs a level for dimension '${d.id}'`, expected: d.levels });
    } else if (typeof level !== 'string' || !d.levels.includes(level)) {
      blockers.push({
        code: 'assessment_level_invalid',
        pointer: `${at}/${d.id}`,
        message: `dimension '${d.id}' of assessment '${def.id}' has level ${JSON.stringify(level)}; allowed: ${d.levels.join(', ')}`,
        expected: d.levels,
      });
    } else {
      levels[d.id] = level;
    }
  }
  for (const key of Object.keys(dims)) {
    if (!def.dimensions.some((d) => d.id === key)) {
      blockers.push({ code: 'assessment_unknown', pointer: `${at}/${key}`, message: `assessment '${def.id}' has no dimension '${key}'; its dimensions: ${def.dimensions.map((d) => d.id).join(', ')}` });
    }
  }
  return blockers.length === before ? levels : undefined;
}

function triggeredFollowup(step: PromptStep, def: AssessmentDefinition, levels: Record<string, string>): string | undefined {
  for (const c of step.assessmentConsequences ?? []) {
    const when = c.when as { anyEqualsLevel?: string; forAssessment?: string; dimensionId?: string; equalsLevel?: string };
    if (when.forAssessment !== undefined && when.forAssessment !== def.id) continue;
    const hit =
      (when.anyEqualsLevel !== undefined && Object.values(levels).includes(when.anyEqualsLevel)) ||
      (when.dimensionId !== undefined && when.equalsLevel !== undefined && levels[when.dimensionId] === when.equalsLevel);
    if (hit && c.effect?.kind === 'require_followup') return c.effect.guidance;
  }
  return undefined;
}

/** The loop a loop-control decision is for: the one whose conditionSource.loopId the artifact names, else the step's own loop. */
function loopFor(workflow: Workflow, lookup: StepLookup, loopId: unknown): string | undefined {
  if (typeof loopId === 'string') {
    const named = workflow.steps.find((s) => s.type === 'loop' && s.loop?.conditionSource?.loopId === loopId);
    if (named) return named.id;
  }
  const own = lookup.loops[lookup.loops.length - 1];
  return own?.loop.loop.conditionSource ? own.loop.id : undefined;
}
