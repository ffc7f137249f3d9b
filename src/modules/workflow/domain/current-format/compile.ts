import { isPlainObject } from '../context-path';
import type { AssessmentDefinition, LoopStep, PromptStep, Workflow, WorkflowStep } from '../types';
import { CONTRACTS, LOOP_CONTROL } from './contracts';
import { metricsFooter } from './metrics-footer';
import { renderPromptBlocks, resolveFeatures, type PromptBlocks, type RenderProblem } from './prompt-blocks';
import type { FeatureDefinition } from './standard-texts';
import { fillArgs, routineIdOf } from './template-call';
import { virtualStepsAfter } from './virtual-steps';
import { placeStepHints } from './step-hints';

/** Where the engine keeps what it must remember between calls, inside the context the agent sends back. */
export const ENGINE_KEY = '__workgraph';

/** The context path of a loop's latest loop-control decision. */
export function loopDecisionPath(loopStepId: string): string {
  return `${ENGINE_KEY}.loopControl.${loopStepId}`;
}

export interface CompileResult {
  /** The workflow in the model step resolution walks (format `current`); present even when there are problems. */
  workflow: Workflow;
  /** Every problem found, each with the JSON pointer into the file. Empty when the file compiles. */
  problems: RenderProblem[];
}

/** Finds a routine workflow (raw file contents) by id among the loaded workflows. */
export type RoutineLookup = (routineId: string) => Record<string, unknown> | undefined;

/**
 * Compiles a current-format workflow file into the model step resolution walks. Pure: the routines come from
 * `lookupRoutine`. In one pass it reports every problem it finds:
 * - a step with both `prompt` and `promptBlocks` (or neither, outside loops, parallel steps and templateCalls);
 * - unknown `wr.refs.*`, unknown features, unknown output contracts, assessmentRefs naming no assessment;
 * - a loop inside a loop body, a templateCall whose routine cannot be found or itself calls a routine, a routine
 *   argument that is not given.
 * What it produces: promptBlocks rendered to markdown (features added, refs replaced); templateCall steps replaced by
 * the routine's steps (ids `caller.stepId`, `{arg}` filled, the caller's runCondition kept, the routine's metaGuidance
 * as guidance); parallel steps as prompt steps that keep their delegations (listed at answer time, by condition);
 * artifact-driven loops as while loops on the engine's remembered decision; the metricsProfile footer on the steps
 * it belongs to.
 */
export function compileCurrentWorkflow(raw: Record<string, unknown>, lookupRoutine: RoutineLookup): CompileResult {
  const problems: RenderProblem[] = [];
  const { features, problems: featureProblems } = resolveFeatures(raw.features);
  problems.push(...featureProblems);
  const assessments = new Set(
    (Array.isArray(raw.assessments) ? (raw.assessments as AssessmentDefinition[]) : []).map((a) => a?.id).filter((id) => typeof id === 'string'),
  );
  const ctx: Ctx = { features, problems, assessments, lookupRoutine, audits: [], rawTopLevel: Array.isArray(raw.steps) ? (raw.steps as unknown[]) : [] };
  const rawSteps = ctx.rawTopLevel;
  const steps: WorkflowStep[] = [];
  rawSteps.forEach((s, i) => steps.push(...compileTopLevel(s, `/steps/${i}`, ctx)));
  const workflow = { ...(raw as unknown as Workflow), steps, format: 'current' as const };
  // The assessments the audits define (one per audit step, its rubric as dimensions) beside the file's own.
  if (ctx.audits.length) workflow.assessments = [...(Array.isArray(raw.assessments) ? (raw.assessments as AssessmentDefinition[]) : []), ...ctx.audits];
  checkGeneratedIds(steps, problems);
  placeMetricsFooter(workflow);
  placeStepHints(workflow, problems);
  return { workflow, problems };
}

interface Ctx {
  features: FeatureDefinition[];
  problems: RenderProblem[];
  assessments: ReadonlySet<string>;
  lookupRoutine: RoutineLookup;
  /** The assessments audit steps define. */
  audits: AssessmentDefinition[];
  rawTopLevel: unknown[];
}

/** A step as compiled, followed by its verification, audit and synthesis steps. */
function withVirtualSteps(step: PromptStep, raw: Record<string, unknown>, pointer: string, ctx: Ctx): PromptStep[] {
  if (raw.verification === undefined && raw.audit === undefined && raw.synthesis === undefined) return [step];
  const { verification: _v, audit: _a, synthesis: _s, ...parent } = step;
  const expansion = virtualStepsAfter(step, raw, pointer, ctx.problems);
  ctx.audits.push(...expansion.assessments);
  return [parent as PromptStep, ...expansion.steps];
}

/** A generated id (`<id>__verification`, …) that an authored step uses too is a problem: WorkRail refuses it. */
function checkGeneratedIds(steps: readonly WorkflowStep[], problems: RenderProblem[]): void {
  const visit = (list: readonly WorkflowStep[], where: string) => {
    const seen = new Map<string, PromptStep>();
    for (const s of list) {
      if (!isPlainObject(s) || typeof s.id !== 'string') continue;
      const other = seen.get(s.id);
      const generated = (s as PromptStep).virtual ?? other?.virtual;
      if (other && generated) {
        problems.push({ pointer: where, message: `step id '${s.id}' is generated by the ${generated.kind} of step '${generated.parentStepId}' and used by another step too` });
      }
      seen.set(s.id, s as PromptStep);
      if (s.type === 'loop' && Array.isArray(s.body)) visit(s.body as WorkflowStep[], `${where}/${s.id}/body`);
    }
  };
  visit(steps, '/steps');
}

function compileTopLevel(value: unknown, pointer: string, ctx: Ctx): WorkflowStep[] {
  if (!isPlainObject(value)) return [value as WorkflowStep];
  if (isPlainObject(value.templateCall)) return expandTemplateCall(value, pointer, ctx);
  if (value.type === 'loop') return [compileLoop(value, pointer, ctx)];
  return withVirtualSteps(compileStep(value, pointer, ctx, true), value, pointer, ctx);
}

function compileLoop(raw: Record<string, unknown>, pointer: string, ctx: Ctx): LoopStep {
  const loop = { ...raw } as unknown as LoopStep;
  if (raw.prompt !== undefined || raw.promptBlocks !== undefined) Object.assign(loop, renderText(raw, pointer, ctx, false));
  const config = isPlainObject(raw.loop) ? { ...(raw.loop as unknown as LoopStep['loop']) } : (raw.loop as LoopStep['loop']);
  const source = isPlainObject(raw.loop) ? raw.loop.conditionSource : undefined;
  if (isPlainObject(source)) {
    if (source.kind !== 'artifact_contract' || source.contractRef !== LOOP_CONTROL) {
      ctx.problems.push({
        pointer: `${pointer}/loop/conditionSource`,
        message: `expected {kind: "artifact_contract", contractRef: "${LOOP_CONTROL}", loopId}`,
      });
    } else {
      // The loop goes on until the remembered decision is "stop"; a missing decision means continue.
      config.condition = { '!=': [{ var: loopDecisionPath(String(raw.id)) }, 'stop'] };
    }
  }
  loop.loop = config;
  if (Array.isArray(raw.body)) {
    const body: (WorkflowStep | string)[] = [];
    raw.body.forEach((b, j) => {
      const here = `${pointer}/body/${j}`;
      if (typeof b === 'string') body.push(b);
      else if (isPlainObject(b) && b.type === 'loop') {
        ctx.problems.push({ pointer: `${here}/type`, message: `loop '${String(b.id)}' is inside loop '${String(raw.id)}'; loops cannot be nested in this format` });
      } else if (isPlainObject(b) && isPlainObject(b.templateCall)) body.push(...expandTemplateCall(b, here, ctx));
      else body.push(...(isPlainObject(b) ? withVirtualSteps(compileStep(b, here, ctx, true), b, here, ctx) : [b as WorkflowStep]));
    });
    loop.body = body as WorkflowStep[];
  }
  // A body that names top-level steps cannot carry their virtual steps (they would run outside the loop as well).
  const named = typeof raw.body === 'string' ? [raw.body] : Array.isArray(raw.body) ? raw.body.filter((b): b is string => typeof b === 'string') : [];
  for (const id of named) {
    const target = ctx.rawTopLevel.find((t) => isPlainObject(t) && t.id === id) as Record<string, unknown> | undefined;
    if (target && (target.verification !== undefined || target.audit !== undefined || target.synthesis !== undefined)) {
      ctx.problems.push({
        pointer: `${pointer}/body`,
        message: `loop '${String(raw.id)}' names step '${id}', which has verification, audit or synthesis; declare the step inline in the loop's body instead (its virtual steps cannot be expanded by reference)`,
      });
    }
  }
  return loop;
}

function compileStep(raw: Record<string, unknown>, pointer: string, ctx: Ctx, needsText: boolean): PromptStep {
  const { promptBlocks: _blocks, type, ...rest } = raw;
  const step = { ...rest } as unknown as PromptStep;
  const parallel = type === 'parallel';
  if (type !== undefined && type !== 'prompt' && !parallel) step.type = type as 'prompt';
  Object.assign(step, renderText(raw, pointer, ctx, needsText && !parallel));
  if (parallel && !Array.isArray(raw.parallelDelegations)) {
    ctx.problems.push({ pointer: `${pointer}/parallelDelegations`, message: 'a parallel step needs parallelDelegations (a list of {workflowId, ...})' });
  }
  if (isPlainObject(raw.outputContract)) {
    const ref = raw.outputContract.contractRef;
    if (typeof ref !== 'string' || !CONTRACTS[ref]) {
      ctx.problems.push({
        pointer: `${pointer}/outputContract/contractRef`,
        message: `unknown output contract '${String(ref)}'; known contracts: ${Object.keys(CONTRACTS).join(', ')}`,
      });
    }
  }
  if (Array.isArray(raw.assessmentRefs)) {
    raw.assessmentRefs.forEach((ref, k) => {
      if (typeof ref !== 'string' || !ctx.assessments.has(ref)) {
        ctx.problems.push({ pointer: `${pointer}/assessmentRefs/${k}`, message: `assessment '${String(ref)}' is not defined in the workflow's assessments` });
      }
    });
  }
  return step;
}

/** The step's prompt: its own text, or its promptBlocks rendered. Both, or neither where one is needed, is a problem. */
function renderText(raw: Record<string, unknown>, pointer: string, ctx: Ctx, needsText: boolean): { prompt: string } {
  const hasPrompt = typeof raw.prompt === 'string';
  const hasBlocks = isPlainObject(raw.promptBlocks);
  if (hasPrompt && hasBlocks) {
    ctx.problems.push({ pointer: `${pointer}/promptBlocks`, message: `step '${String(raw.id)}' has both prompt and promptBlocks; give exactly one` });
  }
  if (hasBlocks) {
    const rendered = renderPromptBlocks(raw.promptBlocks as PromptBlocks, ctx.features);
    for (const p of rendered.problems) ctx.problems.push({ pointer: `${pointer}/promptBlocks${p.pointer}`, message: p.message });
    return { prompt: hasPrompt ? String(raw.prompt) : rendered.text };
  }
  if (!hasPrompt && needsText) ctx.problems.push({ pointer, message: `step '${String(raw.id)}' needs prompt or promptBlocks` });
  return { prompt: hasPrompt ? String(raw.prompt) : '' };
}

function expandTemplateCall(caller: Record<string, unknown>, pointer: string, ctx: Ctx): WorkflowStep[] {
  const call = caller.templateCall as { templateId?: unknown; args?: unknown };
  const templateId = typeof call.templateId === 'string' ? call.templateId : '';
  const routineId = routineIdOf(templateId);
  const routine = routineId ? ctx.lookupRoutine(routineId) : undefined;
  if (!routineId || !routine) {
    ctx.problems.push({
      pointer: `${pointer}/templateCall/templateId`,
      message: routineId
        ? `templateCall '${templateId}' needs routine workflow '${routineId}', which is not among the loaded workflows`
        : `templateCall '${templateId}' is not a routine template; expected wr.templates.routine.<name>`,
    });
    return [];
  }
  const routineSteps = Array.isArray(routine.steps) ? (routine.steps as Record<string, unknown>[]) : [];
  const nested = routineSteps.find((s) => isPlainObject(s) && (s.templateCall !== undefined || s.type === 'loop'));
  if (nested) {
    ctx.problems.push({
      pointer: `${pointer}/templateCall`,
      message: `routine '${routineId}' step '${String(nested.id)}' is a ${nested.type === 'loop' ? 'loop' : 'templateCall'}; a routine called by templateCall may hold prompt steps only (nested calls are refused)`,
    });
    return [];
  }
  const args = isPlainObject(call.args) ? call.args : {};
  const meta = Array.isArray(routine.metaGuidance) ? (routine.metaGuidance as unknown[]).map(String) : [];
  return routineSteps.flatMap((rs, k) => {
    const here = `${pointer}/templateCall`;
    const compiled = compileStep(rs, `${pointer}/templateCall(${routineId}/steps/${k})`, ctx, true);
    const step: PromptStep = {
      ...compiled,
      id: `${String(caller.id)}.${String(rs.id)}`,
      title: fillArgs(String(rs.title ?? ''), args, here, routineId, ctx.problems),
      prompt: fillArgs(compiled.prompt, args, here, routineId, ctx.problems),
    };
    if (Array.isArray(step.guidance) || meta.length > 0) step.guidance = [...(step.guidance ?? []), ...meta].map((g) => fillArgs(String(g), args, here, routineId, ctx.problems));
    // The caller's runCondition governs every expanded step (beside the routine step's own).
    if (caller.runCondition !== undefined) {
      step.runCondition = rs.runCondition !== undefined ? { and: [caller.runCondition, rs.runCondition] } : (caller.runCondition as PromptStep['runCondition']);
    }
    return withVirtualSteps(step, rs, `${pointer}/templateCall(${routineId}/steps/${k})`, ctx);
  });
}

function placeMetricsFooter(workflow: Workflow): void {
  const profile = workflow.metricsProfile;
  if (!profile || profile === 'none') return;
  const last = workflow.steps[workflow.steps.length - 1];
  let lastStep: WorkflowStep | undefined = last;
  if (last && last.type === 'loop' && Array.isArray(last.body)) {
    const body = (last.body as unknown[]).filter((b): b is PromptStep => isPlainObject(b));
    lastStep = [...body].reverse().find((b) => b.outputContract?.contractRef !== LOOP_CONTROL) ?? last;
  }
  const visit = (step: WorkflowStep): void => {
    if (!isPlainObject(step)) return;
    if (step.type === 'loop') {
      if (Array.isArray(step.body)) for (const b of step.body as unknown[]) if (isPlainObject(b)) visit(b as unknown as WorkflowStep);
      return;
    }
    const footer = metricsFooter(profile, step === lastStep);
    if (footer) (step as PromptStep).metricsFooter = footer;
  };
  workflow.steps.forEach(visit);
}
