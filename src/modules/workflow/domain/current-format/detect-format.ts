import { isPlainObject } from '../context-path';
import type { WorkflowFormat } from '../types';

/** Top-level fields only the current format has. */
const CURRENT_TOP_LEVEL = [
  'about',
  'examples',
  'recommendedPreferences',
  'validatedAgainstSpecVersion',
  'references',
  'functionDefinitions',
  'tags',
  'features',
  'assessments',
  'metricsProfile',
  'extensionPoints',
] as const;

/** Step fields only the current format has. */
const CURRENT_STEP = [
  'promptBlocks',
  'promptFragments',
  'outputContract',
  'assessmentRefs',
  'assessmentConsequences',
  'templateCall',
  'parallelDelegations',
  'functionReferences',
  'notesOptional',
  'hasValidation',
  'expectedOutput',
  'verification',
  'audit',
  'synthesis',
] as const;

/**
 * Which format a workflow file is written in. Current when its id is dotted (`wr.discovery`) or it uses any field the
 * classic format lacks (listed above; also `type: "parallel"`, a non-boolean `requireConfirmation`, a loop
 * `conditionSource`); otherwise classic — a file valid in both is read as classic, so existing files never change
 * meaning. Returns the reason beside the format, for `workgraph validate`.
 */
export function detectFormat(doc: unknown): { format: WorkflowFormat; reason: string } {
  if (!isPlainObject(doc)) return { format: 'classic', reason: 'not an object' };
  if (typeof doc.id === 'string' && doc.id.includes('.')) return { format: 'current', reason: `dotted id '${doc.id}'` };
  for (const key of CURRENT_TOP_LEVEL) if (key in doc) return { format: 'current', reason: `top-level '${key}'` };
  const found = findCurrentStepField(doc.steps, '/steps');
  if (found) return { format: 'current', reason: found };
  return { format: 'classic', reason: 'no current-format field' };
}

function findCurrentStepField(steps: unknown, pointer: string): string | undefined {
  if (!Array.isArray(steps)) return undefined;
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    if (!isPlainObject(step)) continue;
    const here = `${pointer}/${i}`;
    for (const key of CURRENT_STEP) if (key in step) return `'${key}' at ${here}`;
    if (step.type === 'parallel') return `type "parallel" at ${here}`;
    if ('requireConfirmation' in step && typeof step.requireConfirmation !== 'boolean') return `a non-boolean requireConfirmation at ${here}`;
    if (isPlainObject(step.loop) && 'conditionSource' in step.loop) return `loop conditionSource at ${here}`;
    const nested = findCurrentStepField(step.body, `${here}/body`);
    if (nested) return nested;
  }
  return undefined;
}
