import { isPlainObject } from '../context-path';
import type { PromptStep, Workflow } from '../types';
import type { RenderProblem } from './prompt-blocks';

/** A WorkRail function definition: a named piece of text a step pulls into its prompt with `functionReferences`. */
interface FunctionDefinition {
  name: string;
  definition: string;
}

/**
 * The parts of a current-format step that are text for the agent beside its prompt, compiled into one markdown
 * section (`step.hintsSection`, shown after the guidance):
 * - `functionReferences` (`name()` or `name`): each resolved against the step's own `functionDefinitions`, then its
 *   loop's, then the workflow's, and its definition shown under `## Functions`; the step's own definitions are shown
 *   too. A reference no definition answers is a load error naming it;
 * - `expectedOutput`: shown under `## Expected output` (text as it is, anything else as JSON);
 * - `modelTier` (the step's, else the workflow's): a `## Model tier` line — a hint for the client, as in WorkRail;
 * - `notesOptional: true`: a `## Notes` line saying the step may be completed without notes;
 * - on a loop, `functionDefinitions` are in scope for its inline body steps, and its `functionReferences`,
 *   `modelTier`, `notesOptional` and `requireConfirmation` are their defaults;
 * - `hasValidation: true` on a step without `validationCriteria` is a load error: the flag promises a check that
 *   nothing would run (the answer's `hasValidation` is always derived from the criteria).
 */
export function placeStepHints(workflow: Workflow, problems: RenderProblem[]): void {
  const workflowDefs = definitionsOf(workflow.functionDefinitions, '/functionDefinitions', problems);
  const declared = (workflow as { modelTier?: unknown }).modelTier;
  const tier = typeof declared === 'string' ? declared : undefined;
  workflow.steps.forEach((step, i) => {
    if (!isPlainObject(step)) return;
    const pointer = `/steps/${i}`;
    if (step.type === 'loop') {
      const loop = step as unknown as StepHintFields & { requireConfirmation?: unknown; notesOptional?: unknown };
      const loopDefs = definitionsOf(loop.functionDefinitions, `${pointer}/functionDefinitions`, problems);
      const loopTier = typeof loop.modelTier === 'string' ? loop.modelTier : tier;
      if (Array.isArray(step.body)) {
        (step.body as unknown[]).forEach((b, j) => {
          if (!isPlainObject(b)) return;
          // A loop's own fields are the defaults of its inline body steps.
          const body = b as unknown as PromptStep & StepHintFields & { requireConfirmation?: unknown };
          if (body.requireConfirmation === undefined && loop.requireConfirmation !== undefined) body.requireConfirmation = loop.requireConfirmation as PromptStep['requireConfirmation'];
          if (body.notesOptional === undefined && loop.notesOptional === true) body.notesOptional = true;
          const refs = [...(Array.isArray(loop.functionReferences) ? loop.functionReferences : []), ...(Array.isArray(body.functionReferences) ? body.functionReferences : [])];
          if (refs.length > 0) body.functionReferences = [...new Set(refs)];
          place(body, `${pointer}/body/${j}`, [...loopDefs, ...workflowDefs], loopTier, problems);
        });
      }
      return;
    }
    place(step as PromptStep, pointer, workflowDefs, tier, problems);
  });
}

function place(step: PromptStep & StepHintFields, pointer: string, inScope: FunctionDefinition[], workflowTier: string | undefined, problems: RenderProblem[]): void {
  const own = definitionsOf(step.functionDefinitions, `${pointer}/functionDefinitions`, problems);
  const shown = new Map<string, FunctionDefinition>(own.map((d) => [d.name, d]));
  (Array.isArray(step.functionReferences) ? step.functionReferences : []).forEach((ref, k) => {
    const name = String(ref).replace(/\(\s*\)$/, '').trim();
    const found = own.find((d) => d.name === name) ?? inScope.find((d) => d.name === name);
    if (found) shown.set(found.name, found);
    else {
      const known = [...own, ...inScope].map((d) => d.name);
      problems.push({
        pointer: `${pointer}/functionReferences/${k}`,
        message: `step '${String(step.id)}' references function '${name}', which no functionDefinitions of the step, its loop or the workflow define${known.length ? ` (defined: ${known.join(', ')})` : ''}`,
      });
    }
  });
  const parts: string[] = [];
  if (shown.size > 0) parts.push(`## Functions\n${[...shown.values()].map((d) => `### ${d.name}\n${d.definition.trim()}`).join('\n\n')}`);
  if (step.expectedOutput !== undefined) {
    const text = typeof step.expectedOutput === 'string' ? step.expectedOutput.trim() : '```json\n' + JSON.stringify(step.expectedOutput, null, 2) + '\n```';
    parts.push(`## Expected output\n${text}`);
  }
  const tier = typeof step.modelTier === 'string' ? step.modelTier : workflowTier;
  if (tier) parts.push(`## Model tier\nSuggested model tier for this step: ${tier} (a hint for the client choosing the model; nothing enforces it).`);
  if (step.notesOptional === true) parts.push('## Notes\nNotes are optional for this step: you may complete it without notesMarkdown when there is nothing worth keeping.');
  if (step.hasValidation === true && step.validationCriteria === undefined) {
    problems.push({ pointer: `${pointer}/hasValidation`, message: `step '${String(step.id)}' says hasValidation: true but has no validationCriteria to check its output against` });
  }
  if (parts.length > 0) step.hintsSection = parts.join('\n\n');
}

/** The fields this pass reads from a compiled step (kept by the compiler from the file). */
interface StepHintFields {
  functionDefinitions?: unknown;
  functionReferences?: unknown;
  expectedOutput?: unknown;
  modelTier?: unknown;
  hasValidation?: unknown;
}

function definitionsOf(value: unknown, pointer: string, problems: RenderProblem[]): FunctionDefinition[] {
  if (!Array.isArray(value)) return [];
  const out: FunctionDefinition[] = [];
  value.forEach((d, i) => {
    if (isPlainObject(d) && typeof d.name === 'string' && typeof d.definition === 'string') out.push({ name: d.name, definition: d.definition });
    else problems.push({ pointer: `${pointer}/${i}`, message: 'a function definition is {name, definition} (both text)' });
  });
  return out;
}

