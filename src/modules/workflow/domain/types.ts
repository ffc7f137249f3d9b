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

/** How a current-format step asks for a stop: a boolean, a condition, or who must approve (and when). */
export type ConfirmationRule =
  | boolean
  | Condition
  | { kind: 'human_approval' | 'coordinator_eval'; condition?: Condition };

/** A current-format prompt fragment: appended to the prompt when its `when` condition holds (always without one). */
export interface PromptFragment {
  id: string;
  when?: Condition;
  text: string;
}

/** A current-format output contract: the artifact the step must (required, the default) or may send. */
export interface OutputContractRef {
  contractRef: string;
  required?: boolean;
}

/** A current-format assessment consequence: when a level matches, the step is done again with this guidance. */
export interface AssessmentConsequence {
  when: { anyEqualsLevel?: string; dimensionId?: string; equalsLevel?: string };
  effect: { kind: 'require_followup'; guidance: string };
}

/** A current-format parallel delegation: a routine the client runs beside others (it does the spawning). */
export interface ParallelDelegation {
  workflowId: string;
  runCondition?: Condition;
  args?: Record<string, unknown>;
  contextMapping?: Record<string, string>;
  modelTier?: string;
  /** What the delegation is for: shown beside it in the parallel step's prompt and the synthesis step's. */
  goal?: string;
  /** Tool names handed to the agent as a hint for the helper it spawns; nothing is restricted by them. */
  allowedTools?: string[];
}

/** `verification` on a step: a shell command proving its deliverables (expanded to `<id>__verification`). */
export interface VerificationConfig {
  command?: string;
  prompt?: string;
  /** The command's time limit; default --verification-timeout. */
  timeout_ms?: number;
}

/** One rubric dimension of an audit: WorkRail's criterion text, or workgraph's `{id, criterion, levels?, bar?}`. */
export type AuditRubricItem = string | { id: string; criterion: string; levels?: string[]; bar?: string };

/** `audit` on a step: a self-audit against the rubric (expanded to `<id>__audit`). */
export interface AuditConfig {
  prompt?: string;
  rubric?: AuditRubricItem[];
}

/** `synthesis` on a parallel step: the fan-in after its delegations (expanded to `<id>__synthesis`). */
export interface SynthesisConfig {
  prompt?: string;
  outputContract?: OutputContractRef;
}

/** What a step the compiler added (verification, audit, synthesis) is, and which step it follows. */
export type VirtualStepInfo =
  | { kind: 'verification'; parentStepId: string; command: string; prompt?: string; timeoutMs?: number }
  | { kind: 'audit'; parentStepId: string; assessmentId: string; bars: Record<string, string>; note?: string }
  | { kind: 'synthesis'; parentStepId: string; delegations: ParallelDelegation[] };

export interface PromptStep extends StepBase {
  type?: 'prompt';
  prompt: string;
  agentRole?: string;
  guidance?: string[];
  askForFiles?: boolean;
  /** Classic files: a boolean. Current-format files: also a condition or `{kind, condition?}`. */
  requireConfirmation?: ConfirmationRule;
  validationCriteria?: ValidationCriteria;
  // Current-format fields, kept by the compiler (src/modules/workflow/domain/current-format/) for the answer.
  promptFragments?: PromptFragment[];
  outputContract?: OutputContractRef;
  assessmentRefs?: string[];
  assessmentConsequences?: AssessmentConsequence[];
  parallelDelegations?: ParallelDelegation[];
  /** The metricsProfile footer this step carries (compiled from the workflow's metricsProfile). */
  metricsFooter?: string;
  /** Functions, expected output and model tier as markdown (compiled by current-format/step-hints.ts). */
  hintsSection?: string;
  notesOptional?: boolean;
  verification?: VerificationConfig;
  audit?: AuditConfig;
  synthesis?: SynthesisConfig;
  /** Set by the compiler on the steps it adds after a step's verification, audit or synthesis. */
  virtual?: VirtualStepInfo;
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
  /** Current format: the loop goes on until the loop-control artifact says stop. */
  conditionSource?: { kind: 'artifact_contract'; contractRef: string; loopId: string };
}

export interface LoopStep extends StepBase {
  type: 'loop';
  prompt?: string;
  loop: LoopConfig;
  /** Inline body steps, or the id (or ids) of top-level steps that then run inside the loop only. */
  body: string | string[] | WorkflowStep[];
}

export type WorkflowStep = PromptStep | LoopStep;

/** An assessment a current-format step asks for: dimensions, each with its allowed levels. */
export interface AssessmentDefinition {
  id: string;
  purpose?: string;
  dimensions: { id: string; purpose?: string; levels: string[] }[];
}

export type WorkflowFormat = 'classic' | 'current';

export interface Workflow {
  id: string;
  name: string;
  description: string;
  version: string;
  preconditions?: string[];
  clarificationPrompts?: string[];
  metaGuidance?: string[];
  steps: WorkflowStep[];
  /** Set (by the loader, never by the file) only for WorkRail's current format; absent means classic. */
  format?: 'current';
  // Current-format metadata, served by workflow_get and workflow_list.
  about?: string;
  examples?: unknown[];
  recommendedPreferences?: Record<string, unknown>;
  validatedAgainstSpecVersion?: number | string;
  references?: WorkflowReference[];
  functionDefinitions?: unknown[];
  tags?: string[];
  features?: unknown[];
  assessments?: AssessmentDefinition[];
  metricsProfile?: 'none' | 'coding' | 'research' | 'design' | 'review' | 'ticket';
  tips?: string[];
  autoRecognitionPatterns?: unknown;
  /** The default model tier of the steps (a hint shown in each step's prompt). */
  modelTier?: string;
}

/** A document a current-format workflow points to; its content is never inlined. */
export interface WorkflowReference {
  id: string;
  title?: string;
  source: string;
  resolveFrom: 'package' | 'workspace';
  purpose?: string;
  authoritative?: boolean;
}

/** Where a workflow came from (bundled, project, env, flag folder) — reported by workflow_list. */
export interface WorkflowSummary {
  id: string;
  name: string;
  description: string;
  version: string;
  source: string;
  /** `current` for WorkRail's current format (absent: classic). */
  format?: 'current';
  tags?: string[];
  about?: string;
  /** The source of the workflow of the same id this one replaces (an earlier source in the override order). */
  shadows?: string;
}

export function isLoopStep(step: WorkflowStep): step is LoopStep {
  return (step as LoopStep).type === 'loop';
}
