import { isLoopStep, type LoopStep, type Workflow, type WorkflowStep } from './types';
import { forEachStep } from './workflow-index';

/** One structural problem: a JSON pointer into the workflow document and a one-line message. */
export interface StructureIssue {
  path: string;
  message: string;
}

/**
 * Checks JSON Schema cannot express, for a workflow that already has the schema's shape:
 * - step ids are unique across the whole workflow, inline loop bodies included (a completion id or a plain id then
 *   names exactly one step);
 * - a string `body` (or string entries of a `body` array) names top-level steps, not unknown ids, not inline steps,
 *   not the loop itself, not the same step twice;
 * - loops do not contain themselves through bodies that name other loops (`a` → `b` → `a`).
 * Returns every issue found, in document order; an empty array when the structure is sound.
 */
export function checkWorkflowStructure(workflow: Workflow): StructureIssue[] {
  const issues: StructureIssue[] = [];
  const steps: WorkflowStep[] = Array.isArray(workflow?.steps) ? workflow.steps : [];
  const firstSeen = new Map<string, string>();
  const loopsWithPointers: { loop: LoopStep; pointer: string }[] = [];

  forEachStep(steps, (step, pointer) => {
    if (typeof step.id === 'string') {
      const earlier = firstSeen.get(step.id);
      if (earlier !== undefined) {
        issues.push({ path: `${pointer}/id`, message: `duplicate step id '${step.id}' (already used at ${earlier}/id); step ids must be unique` });
      } else {
        firstSeen.set(step.id, pointer);
      }
    }
    if (isLoopStep(step)) loopsWithPointers.push({ loop: step, pointer });
  });

  const topLevel = new Map<string, WorkflowStep>();
  for (const step of steps) if (typeof step?.id === 'string' && !topLevel.has(step.id)) topLevel.set(step.id, step);

  for (const { loop, pointer } of loopsWithPointers) {
    const refs = typeof loop.body === 'string' ? [{ id: loop.body, path: `${pointer}/body` }] : [];
    if (Array.isArray(loop.body)) {
      (loop.body as unknown[]).forEach((entry, j) => {
        if (typeof entry === 'string') refs.push({ id: entry, path: `${pointer}/body/${j}` });
      });
    }
    const named = new Set<string>();
    for (const ref of refs) {
      if (ref.id === loop.id) {
        issues.push({ path: ref.path, message: `loop '${loop.id}' body names the loop itself; name other top-level steps or give the steps inline` });
      } else if (named.has(ref.id)) {
        issues.push({ path: ref.path, message: `loop '${loop.id}' body names step '${ref.id}' twice; each step may appear once per body` });
      } else if (!topLevel.has(ref.id)) {
        const where = firstSeen.get(ref.id);
        issues.push({
          path: ref.path,
          message: where
            ? `loop '${loop.id}' body names '${ref.id}', which is not a top-level step (it is at ${where}); a body may name top-level steps only`
            : `loop '${loop.id}' body names unknown step '${ref.id}'; expected the id of a top-level step`,
        });
      }
      named.add(ref.id);
    }
  }

  issues.push(...referenceCycles(loopsWithPointers, topLevel));
  return issues;
}

/** Loops that contain themselves through string bodies naming other loops (self-reference is reported above). */
function referenceCycles(loops: { loop: LoopStep; pointer: string }[], topLevel: Map<string, WorkflowStep>): StructureIssue[] {
  const issues: StructureIssue[] = [];
  const pointerOf = new Map(loops.map(({ loop, pointer }) => [loop, pointer]));
  const reported = new Set<string>();
  for (const { loop, pointer } of loops) {
    const cycle = findCycle(loop, topLevel, [loop]);
    if (!cycle) continue;
    const key = [...cycle.map((l) => l.id)].sort().join(',');
    if (reported.has(key)) continue;
    reported.add(key);
    issues.push({
      path: `${pointerOf.get(cycle[0]) ?? pointer}/body`,
      message: `loops contain each other through their bodies: ${[...cycle, cycle[0]].map((l) => l.id).join(' -> ')}`,
    });
  }
  return issues;
}

function findCycle(start: LoopStep, topLevel: Map<string, WorkflowStep>, path: LoopStep[]): LoopStep[] | undefined {
  const current = path[path.length - 1];
  for (const child of childLoops(current, topLevel)) {
    if (child === start) return path.length > 1 ? path : undefined;
    if (path.includes(child)) continue;
    const found = findCycle(start, topLevel, [...path, child]);
    if (found) return found;
  }
  return undefined;
}

/** Loops a loop runs inside its iterations: inline loop steps and named top-level loops, at any inline depth. */
function childLoops(loop: LoopStep, topLevel: Map<string, WorkflowStep>): LoopStep[] {
  const out: LoopStep[] = [];
  const entries: unknown[] = typeof loop.body === 'string' ? [loop.body] : Array.isArray(loop.body) ? loop.body : [];
  for (const entry of entries) {
    const step = typeof entry === 'string' ? topLevel.get(entry) : (entry as WorkflowStep);
    if (step && typeof step === 'object' && isLoopStep(step)) out.push(step);
  }
  return out;
}
