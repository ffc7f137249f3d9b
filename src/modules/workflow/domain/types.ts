/**
 * Workflow model: what a drop-in workflow JSON file holds (spec/workflow.schema.json is the schema of the same shape).
 */

/** A comparison condition: `{var, equals|not_equals|gt|gte|lt|lte|in|contains}`; a missing variable makes it false. */
export interface ComparisonCondition {
  var: string;
  equals?: unknown;
  not_equals?: unknown;
  gt?: number | string;
  gte?: number | string;
  lt?: number | string;
  lte?: number | string;
  in?: unknown[];
  contains?: unknown;
}

/**
 * A condition on the context. The comparison form combined with `and | or | not`; any other object is JSON Logic,
 * evaluated with JSON Logic's own rules.
 */
export type Condition =
  | ComparisonCondition
  | { and: Condition[] }
  | { or: Condition[] }
  | { not: Condition }
  | Record<string, unknown>;

export interface ContainsRule {
  type: 'contains';
  value: string;
  /** Case-insensitive match when true. Default false. */
  ignoreCase?: boolean;
  message?: string;
  condition?: Condition;
}

export interface RegexRule {
  type: 'regex';
  pattern: string;
  /** RegExp flags; `g` and `y` are ignored so a cached regex never alternates between calls. */
  flags?: string;
  message?: string;
  condition?: Condition;
}

export interface LengthRule {
  type: 'length';
  min?: number;
  max?: number;
  message?: string;
  condition?: Condition;
}

export interface SchemaRule {
  type: 'schema';
  /** JSON Schema the output (parsed as JSON, a surrounding ```json fence stripped) must satisfy. */
  schema: Record<string, unknown> | boolean;
  message?: string;
  condition?: Condition;
}

export type ValidationRule = ContainsRule | RegexRule | LengthRule | SchemaRule;

/** `and` stops at the first failure, `or` at the first success, `not` inverts. Compositions nest to any depth. */
export type ValidationComposition =
  | { and: ValidationCriteria[] }
  | { or: ValidationCriteria[] }
  | { not: ValidationCriteria };

/** A single rule, a composition, or a plain array of them (every element checked, every failure reported). */
export type ValidationCriteria = ValidationRule | ValidationComposition | ValidationCriteria[];

interface StepBase {
  id: string;
  title: string;
  /** Evaluated against the context; a step whose condition is false is skipped and never blocks completion. */
  runCondition?: Condition;
}

export interface PromptStep extends StepBase {
  type?: 'prompt';
  prompt: string;
  agentRole?: string;
  guidance?: string[];
  askForFiles?: boolean;
  requireConfirmation?: boolean;
  validationCriteria?: ValidationCriteria;
}

export type LoopType = 'while' | 'until' | 'for' | 'forEach';

export interface LoopConfig {
  type: LoopType;
  /** while/until: evaluated against the context at the start of each iteration. */
  condition?: Condition;
  /** forEach: name of a context array. */
  items?: string;
  /** for: a number, or the name of a context variable holding one. */
  count?: number | string;
  /** Hard cap on iterations. Required. */
  maxIterations: number;
  /** Bound to the current item (forEach). */
  itemVar?: string;
  /** Bound to i, counted from 0. */
  indexVar?: string;
  /** Bound to i + 1. */
  iterationVar?: string;
}

export interface LoopStep extends StepBase {
  type: 'loop';
  prompt?: string;
  loop: LoopConfig;
  /** Inline body steps, or the id (or ids) of top-level steps that then run inside the loop only. */
  body: string | string[] | WorkflowStep[];
}

export type WorkflowStep = PromptStep | LoopStep;

export interface Workflow {
  id: string;
  name: string;
  description: string;
  version: string;
  preconditions?: string[];
  clarificationPrompts?: string[];
  metaGuidance?: string[];
  steps: WorkflowStep[];
}

/** Where a workflow came from (bundled, project, env, flag folder) — reported by workflow_list. */
export interface WorkflowSummary {
  id: string;
  name: string;
  description: string;
  version: string;
  source: string;
}

export function isLoopStep(step: WorkflowStep): step is LoopStep {
  return (step as LoopStep).type === 'loop';
}
