import { InvalidWorkflowError } from '../../../kernel/errors';
import { isLoopStep, type LoopStep, type Workflow, type WorkflowStep } from './types';

/**
 * The shape of a workflow as step resolution sees it: which top-level steps run on their own (a step named by a loop's
 * `body` runs inside that loop only) and each loop's body as a list of steps.
 */
const indexes = new WeakMap<Workflow, WorkflowIndex>();

export class WorkflowIndex {
  /** Top-level steps by id (the steps a string `body` may name). */
  readonly topLevelById: ReadonlyMap<string, WorkflowStep>;
  /** Top-level steps that run on their own, in order. */
  readonly sequence: readonly WorkflowStep[];
  /** Every loop variable name (indexVar, iterationVar, itemVar) any loop declares: the loops own these context keys. */
  readonly loopVariables: ReadonlySet<string>;
  private readonly bodies = new Map<LoopStep, readonly WorkflowStep[]>();

  constructor(readonly workflow: Workflow) {
    const steps = Array.isArray(workflow.steps) ? workflow.steps : [];
    const byId = new Map<string, WorkflowStep>();
    for (const step of steps) if (!byId.has(step.id)) byId.set(step.id, step);
    this.topLevelById = byId;
    const referenced = new Set<string>();
    const variables = new Set<string>();
    forEachStep(steps, (step) => {
      if (!isLoopStep(step)) return;
      for (const id of bodyReferences(step)) referenced.add(id);
      for (const name of [step.loop?.indexVar, step.loop?.iterationVar, step.loop?.itemVar]) {
        if (typeof name === 'string' && name !== '') variables.add(name);
      }
    });
    this.sequence = steps.filter((s) => !referenced.has(s.id));
    this.loopVariables = variables;
  }

  /**
   * The index of a workflow, built once per workflow object: workflows come from a cached storage snapshot and are
   * never mutated, so every call for the same workflow shares one index.
   */
  static of(workflow: Workflow): WorkflowIndex {
    let index = indexes.get(workflow);
    if (!index) indexes.set(workflow, (index = new WorkflowIndex(workflow)));
    return index;
  }

  /**
   * A loop's body as steps: its inline steps, or the top-level steps its `body` names, in the order named.
   * @throws InvalidWorkflowError when a named step does not exist.
   */
  bodyOf(loop: LoopStep): readonly WorkflowStep[] {
    let body = this.bodies.get(loop);
    if (body) return body;
    const raw: unknown[] = typeof loop.body === 'string' ? [loop.body] : Array.isArray(loop.body) ? loop.body : [];
    body = raw.map((entry) => {
      if (typeof entry !== 'string') return entry as WorkflowStep;
      const step = this.topLevelById.get(entry);
      if (!step) {
        throw new InvalidWorkflowError(this.workflow.id, undefined, `loop '${loop.id}' body names unknown step '${entry}'`);
      }
      return step;
    });
    this.bodies.set(loop, body);
    return body;
  }
}

/** The top-level step ids a loop's `body` names (empty for an inline body). */
export function bodyReferences(loop: LoopStep): string[] {
  if (typeof loop.body === 'string') return [loop.body];
  if (Array.isArray(loop.body)) return loop.body.filter((b): b is string => typeof b === 'string');
  return [];
}

/** Visits every step, depth first, including inline loop bodies (not steps a body names by id: those are top-level). */
export function forEachStep(
  steps: readonly WorkflowStep[],
  visit: (step: WorkflowStep, pointer: string) => void,
  pointer = '/steps',
  firstIndex = 0,
): void {
  steps.forEach((step, i) => {
    if (typeof step !== 'object' || step === null) return;
    const here = `${pointer}/${i + firstIndex}`;
    visit(step, here);
    if (isLoopStep(step) && Array.isArray(step.body)) {
      (step.body as unknown[]).forEach((entry, j) => {
        if (typeof entry === 'object' && entry !== null) forEachStep([entry as WorkflowStep], visit, `${here}/body`, j);
      });
    }
  });
}
