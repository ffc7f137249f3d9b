import type { EvaluateCondition } from '../conditions';
import { isPlainObject } from '../context-path';
import { substitutePlaceholders } from '../template';
import type { ConfirmationRule, ParallelDelegation, PromptStep } from '../types';
import { resultSlots } from './virtual-steps';

/** Who must confirm before the agent goes on, and why. */
export interface Confirmation {
  /** `user`: stop and ask the person; `coordinator`: a coordinating agent evaluates the result. */
  by: 'user' | 'coordinator';
  reason: string;
}

/** What a current-format step adds to its answer once the context is known. */
export interface StepExtras {
  /** The prompt with the fragments whose `when` holds appended (placeholders filled). */
  prompt: string;
  /** The ids of the fragments appended. */
  fragments: string[];
  /** The delegations of a parallel step whose conditions hold, args with placeholders filled. */
  delegations?: ParallelDelegation[];
  confirmation?: Confirmation;
  /** A synthesis step: the parallel step's delegations that applied, each with its goal and result slot. */
  synthesis?: { workflowId: string; goal?: string; slot: string }[];
}

/**
 * Evaluates what depends on the context in a current-format step: its prompt fragments (each whose `when` holds is
 * appended, in order), its parallel delegations (only those whose runCondition holds) and its requireConfirmation
 * (boolean, condition or `{kind, condition?}`).
 */
export function currentStepExtras(step: PromptStep, prompt: string, context: Record<string, unknown>, evaluate: EvaluateCondition): StepExtras {
  const fragments: string[] = [];
  const texts: string[] = [prompt];
  for (const f of step.promptFragments ?? []) {
    if (f.when !== undefined && !evaluate(f.when, context)) continue;
    fragments.push(f.id);
    texts.push(substitutePlaceholders(f.text, context, true));
  }
  const extras: StepExtras = { prompt: texts.filter((t) => t.trim() !== '').join('\n\n'), fragments };
  if (Array.isArray(step.parallelDelegations)) {
    extras.delegations = step.parallelDelegations
      .filter((d) => d.runCondition === undefined || evaluate(d.runCondition, context))
      .map((d) => (d.args ? { ...d, args: fillArgs(d.args, context) } : d));
  }
  if (step.virtual?.kind === 'synthesis') {
    const all = step.virtual.delegations;
    const slots = resultSlots(step.virtual.parentStepId, all);
    extras.synthesis = all
      .map((d, k) => ({ d, slot: slots[k] }))
      .filter(({ d }) => d.runCondition === undefined || evaluate(d.runCondition, context))
      .map(({ d, slot }) => ({ workflowId: d.workflowId, ...(d.goal ? { goal: substitutePlaceholders(d.goal, context, true) } : {}), slot }));
  }
  const confirmation = confirmationOf(step.requireConfirmation, context, evaluate);
  if (confirmation) extras.confirmation = confirmation;
  return extras;
}

function fillArgs(args: Record<string, unknown>, context: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === 'string' ? substitutePlaceholders(v, context, true) : v]));
}

/** requireConfirmation as the answer states it; undefined when the agent need not stop. */
export function confirmationOf(rule: ConfirmationRule | undefined, context: Record<string, unknown>, evaluate: EvaluateCondition): Confirmation | undefined {
  if (rule === undefined || rule === false) return undefined;
  if (rule === true) return { by: 'user', reason: 'This step asks for confirmation: show the person your result and wait for their go-ahead.' };
  const kind = isPlainObject(rule) ? (rule as Record<string, unknown>).kind : undefined;
  if (kind === 'human_approval' || kind === 'coordinator_eval') {
    const condition = (rule as { condition?: unknown }).condition;
    if (condition !== undefined && !evaluate(condition as never, context)) return undefined;
    return kind === 'human_approval'
      ? { by: 'user', reason: 'This step needs human approval: present the result and wait for the person to approve it.' }
      : { by: 'coordinator', reason: 'A coordinating agent evaluates this step: hand it the result and wait for its verdict.' };
  }
  if (!evaluate(rule as never, context)) return undefined;
  return { by: 'user', reason: `This step asks for confirmation in this context (${abbreviate(rule)} holds): wait for the person's go-ahead.` };
}

function abbreviate(value: unknown): string {
  const text = JSON.stringify(value) ?? '';
  return text.length > 100 ? `${text.slice(0, 97)}...` : text;
}
