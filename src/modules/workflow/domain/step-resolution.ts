import { InvalidWorkflowError } from '../../../kernel/errors';
import type { EvaluateCondition } from './conditions';
import { isPlainObject } from './context-path';
import { iterationPrefix } from './completion-id';
import { forEachItems, iterationRuns, loopBindings, maxIterationsOf } from './loop-runtime';
import { substitutePlaceholders } from './template';
import { isLoopStep, type LoopStep, type PromptStep, type Workflow, type WorkflowStep } from './types';
import { WorkflowIndex } from './workflow-index';
import { currentStepExtras, type StepExtras } from './current-format/step-extras';

/** Where a step handed out inside a loop sits: the innermost loop, its iteration (from 0), its item (forEach). */
export interface LoopInfo {
  id: string;
  iteration: number;
  item?: unknown;
  /** The enclosing loop's info, for a step inside nested loops. */
  parent?: LoopInfo;
}

/** A step as handed to the agent: placeholders substituted, with the completion id to append when it is done. */
export type ResolvedStep = Omit<PromptStep, 'type'> & {
  /** Append exactly this to `completedSteps` when the step is done. */
  completionId: string;
  /** Present when the step runs inside a loop. */
  loop?: LoopInfo;
  /** Current format: what depends on the context (fragments appended, delegations that apply, confirmation). */
  extras?: StepExtras;
};

export interface NextStepResult {
  step: ResolvedStep | null;
  isComplete: boolean;
  /** The context to send back: the input context plus the current loop variables. */
  context: Record<string, unknown>;
  /** What the agent must also be told: loops that stopped at their maxIterations on the way to this step. */
  notes: string[];
}

interface Frame {
  loop: LoopStep;
  iteration: number;
  item?: { value: unknown };
  info: LoopInfo;
}

interface Found {
  step: PromptStep;
  completionId: string;
  context: Record<string, unknown>;
  frames: readonly Frame[];
}

/**
 * The next step of a workflow: a pure, deterministic function of (workflow, completedSteps, context).
 *
 * Semantics (the contract documented in docs/writing-workflows.md):
 * - A sequence (the top-level steps, or one loop iteration's body) is walked in order. The next step is the first
 *   one whose completion id is not in `completedSteps` and whose `runCondition` holds (skipped steps never block
 *   completion); a later step never completes an earlier one.
 * - A loop has started when any completion id of one of its iterations is in `completedSteps`. Iterations below the
 *   highest started one are sealed. Whether an iteration runs is decided at its start (no completion ids of it yet):
 *   `for` → i < count, `forEach` → i < items.length, `while` → condition true, `until` → condition false. An
 *   iteration is complete when its body sequence has nothing left. The loop ends when an iteration does not run, at
 *   maxIterations (a note says so), when its own id is in `completedSteps`, or once a later step has started.
 * - Loop variables (every indexVar/iterationVar/itemVar the workflow declares) are removed from the input context and
 *   bound afresh, so the returned context can be sent back unchanged and gives the same answer.
 */
export function resolveNextStep(
  workflow: Workflow,
  completedSteps: readonly string[],
  context: Record<string, unknown> | undefined,
  evaluate: EvaluateCondition,
): NextStepResult {
  const index = WorkflowIndex.of(workflow);
  const base = withoutLoopVariables(context, index.loopVariables);
  const resolver = new Resolver(workflow.id, index, completedSteps, evaluate);
  const found = resolver.sequence(index.sequence, '', base, []);
  if (!found) return { step: null, isComplete: true, context: base, notes: resolver.notes };
  const step = toResolvedStep(found, workflow.format === 'current');
  if (workflow.format === 'current') step.extras = currentStepExtras(found.step, step.prompt, found.context, evaluate);
  return { step, isComplete: false, context: found.context, notes: resolver.notes };
}

class Resolver {
  readonly notes: string[] = [];
  private readonly completed: ReadonlySet<string>;
  /** Per loop completion id (`outer[0].inner`): the highest iteration with a completion id — one pass over the list. */
  private readonly highest = new Map<string, number>();

  constructor(
    private readonly workflowId: string,
    private readonly index: WorkflowIndex,
    completedList: readonly string[],
    private readonly evaluate: EvaluateCondition,
  ) {
    this.completed = new Set(completedList);
    for (const entry of completedList) this.noteIterations(entry);
  }

  /** Records every loop iteration `entry` lies in (`a[1].b[2].c`: `a` at 1, `a[1].b` at 2). */
  private noteIterations(entry: string): void {
    let open = entry.indexOf('[');
    while (open > 0) {
      const close = entry.indexOf('].', open);
      if (close < 0) return;
      const digits = entry.slice(open + 1, close);
      if (!/^\d+$/.test(digits)) return;
      const loopId = entry.slice(0, open);
      const n = Number(digits);
      if (n > (this.highest.get(loopId) ?? -1)) this.highest.set(loopId, n);
      open = entry.indexOf('[', close + 2);
    }
  }

  sequence(steps: readonly WorkflowStep[], prefix: string, context: Record<string, unknown>, frames: readonly Frame[]): Found | null {
    // A loop is finished once a later step of the same sequence has started (the loop docs define that rule); a
    // prompt step is done only by its own completion id — a later step never completes an earlier one.
    let lastStarted = -1;
    for (let k = steps.length - 1; k >= 0; k--) {
      if (this.started(steps[k], prefix)) {
        lastStarted = k;
        break;
      }
    }
    for (let k = 0; k < steps.length; k++) {
      const step = steps[k];
      const completionId = prefix + step.id;
      if (this.completed.has(completionId)) continue;
      if (!isLoopStep(step)) {
        if (step.runCondition !== undefined && !this.evaluate(step.runCondition, context)) continue;
        return { step, completionId, context, frames };
      }
      if (k < lastStarted) continue;
      // A loop's runCondition is decided when the loop is reached, not again once it has started.
      if (!this.started(step, prefix)) {
        if (step.runCondition !== undefined && !this.evaluate(step.runCondition, context)) continue;
      }
      const found = this.loop(step, completionId, context, frames);
      if (found) return found;
    }
    return null;
  }

  private loop(loop: LoopStep, loopId: string, context: Record<string, unknown>, frames: readonly Frame[]): Found | null {
    if (frames.some((f) => f.loop === loop)) {
      throw new InvalidWorkflowError(this.workflowId, undefined, `loop '${loop.id}' contains itself through its body`);
    }
    const max = maxIterationsOf(this.workflowId, loop);
    const body = this.index.bodyOf(loop);
    const highest = this.highest.get(loopId) ?? -1;
    for (let i = Math.max(highest, 0); ; i++) {
      const item = loop.loop.type === 'forEach' ? itemAt(forEachItems(this.workflowId, loop, context), i) : undefined;
      const iterationContext = { ...context, ...loopBindings(loop, i, item) };
      const startedIteration = i <= highest;
      if (i >= max) {
        if (!startedIteration && iterationRuns(this.workflowId, loop, i, context, iterationContext, this.evaluate)) {
          this.notes.push(capNote(loop, max, context, this.workflowId));
        }
        return null;
      }
      if (!startedIteration && !iterationRuns(this.workflowId, loop, i, context, iterationContext, this.evaluate)) return null;
      const parent = frames.length > 0 ? frames[frames.length - 1].info : undefined;
      const info: LoopInfo = { id: loop.id, iteration: i, ...(item ? { item: item.value } : {}), ...(parent ? { parent } : {}) };
      const found = this.sequence(body, iterationPrefix(loopId, i), iterationContext, [...frames, { loop, iteration: i, item, info }]);
      if (found) return found;
    }
  }

  /** A prompt step has started when it is completed; a loop when it is closed or any iteration has a completion id. */
  private started(step: WorkflowStep, prefix: string): boolean {
    const id = prefix + step.id;
    if (this.completed.has(id)) return true;
    if (!isLoopStep(step)) return false;
    return this.highest.has(id);
  }
}

function itemAt(items: unknown[], i: number): { value: unknown } | undefined {
  return i < items.length ? { value: items[i] } : undefined;
}

function capNote(loop: LoopStep, max: number, context: Record<string, unknown>, workflowId: string): string {
  const what = `Loop '${loop.title ?? loop.id}' (${loop.id}) stopped at its maxIterations (${max})`;
  if (loop.loop.type === 'forEach') {
    const total = forEachItems(workflowId, loop, context).length;
    return `${what}: ${total - max} of ${total} items were not processed. Say so in your report.`;
  }
  if (loop.loop.type === 'for') return `${what} before reaching its count. Say what was left undone.`;
  return `${what} although its ${loop.loop.type} condition had not ended it. Say what was left undone.`;
}

function withoutLoopVariables(context: Record<string, unknown> | undefined, names: ReadonlySet<string>): Record<string, unknown> {
  if (!isPlainObject(context)) return {};
  // Object.fromEntries defines own properties, so a `__proto__` key stays data and never becomes a prototype.
  return Object.fromEntries(Object.entries(context).filter(([k]) => !names.has(k)));
}

function toResolvedStep(found: Found, markUnset: boolean): ResolvedStep {
  const rest = found.step;
  const ctx = found.context;
  const fill = (text: string) => substitutePlaceholders(text, ctx, markUnset);
  // Not `const { type, ...rest } = step`: V8 copies an object rest with excluded keys through a slow runtime path,
  // which made this copy about half of workflow_next's engine time (bench/rpc-latency.js).
  const resolved = copyWithout(rest, 'type') as ResolvedStep;
  resolved.completionId = found.completionId;
  resolved.title = fill(String(rest.title ?? ''));
  resolved.prompt = fill(String(rest.prompt ?? ''));
  if (typeof rest.agentRole === 'string') resolved.agentRole = fill(rest.agentRole);
  if (Array.isArray(rest.guidance)) resolved.guidance = rest.guidance.map((g) => fill(String(g)));
  const innermost = found.frames[found.frames.length - 1];
  if (innermost) resolved.loop = innermost.info;
  return resolved;
}

/** A shallow copy of `obj` without `key` (own enumerable properties, in order). */
function copyWithout<T extends object>(obj: T, key: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(obj)) {
    if (k === key) continue;
    const value = (obj as Record<string, unknown>)[k];
    // A `__proto__` key read from JSON is data: define it, never assign it (that would set the copy's prototype).
    if (k === '__proto__') Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
    else out[k] = value;
  }
  return out;
}
