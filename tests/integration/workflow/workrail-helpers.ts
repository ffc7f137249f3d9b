import * as path from 'node:path';
import { SchemaRegistry } from '../../../src/kernel/schema-registry';
import { WorkflowDocumentChecker } from '../../../src/modules/workflow/application/services/workflow-document-checker';
import { FileWorkflowStorage } from '../../../src/modules/workflow/infrastructure/file-workflow-storage';
import { SchemaValidatingWorkflowStorage } from '../../../src/modules/workflow/infrastructure/schema-validating-workflow-storage';
import { loadWorkflowSchema } from '../../../src/modules/workflow/infrastructure/workflow-schema-file';

/** WorkRail's bundled workflows (MIT; see tests/fixtures/workrail/LICENSE and README.md). */
export const WORKRAIL_WORKFLOWS = path.join(__dirname, '../../fixtures/workrail/workflows');

/** The storage the server composes for one folder (file reading, schema and structure checks, compilation). */
export function folderStorage(dir: string): SchemaValidatingWorkflowStorage {
  return new SchemaValidatingWorkflowStorage(new FileWorkflowStorage(dir, 'flag'), new WorkflowDocumentChecker(new SchemaRegistry(), loadWorkflowSchema()));
}

import { ConditionEvaluator } from '../../../src/modules/workflow/application/services/condition-evaluator';
import { StepOutputChecker } from '../../../src/modules/workflow/application/services/step-output-checker';
import { nextStep, type GetNextStepOutput } from '../../../src/modules/workflow/application/services/next-step-engine';
import type { AssessmentAnswer } from '../../../src/modules/workflow/domain/current-format/answer-parts';
import { ContractSchemaFiles } from '../../../src/modules/workflow/infrastructure/contract-schema-files';
import { isLoopStep, type Workflow, type WorkflowStep } from '../../../src/modules/workflow/domain/types';

const conditions = new ConditionEvaluator();
const outputs = new StepOutputChecker(new SchemaRegistry(), new ContractSchemaFiles());

/** One call of the engine, as workflow_next makes it. */
export function callNext(workflow: Workflow, completed: string[], context: Record<string, unknown>, output?: unknown): GetNextStepOutput {
  return nextStep(workflow, completed, context, output, conditions, outputs);
}

/** The context a generic walk starts with: every forEach `items` a two-item list, every `for` count variable 2. */
export function startingContext(workflow: Workflow): Record<string, unknown> {
  const ctx: Record<string, unknown> = {};
  const visit = (steps: readonly unknown[]) => {
    for (const s of steps) {
      if (typeof s !== 'object' || s === null) continue;
      const step = s as WorkflowStep;
      if (!isLoopStep(step)) continue;
      if (step.loop.type === 'forEach' && typeof step.loop.items === 'string') ctx[step.loop.items] = ['first item', 'second item'];
      if (step.loop.type === 'for' && typeof step.loop.count === 'string') ctx[step.loop.count] = 2;
      if (Array.isArray(step.body)) visit(step.body);
    }
  };
  visit(workflow.steps);
  return ctx;
}

export interface WalkRecord {
  calls: number;
  steps: string[];
  blocked: number;
  followups: number;
  answers: GetNextStepOutput[];
}

/**
 * Drives a workflow to completion generically, as WorkRail's bundled-workflow smoke test does: each step's output is
 * the example artifact of its contract and the example of each assessment (levels that need no follow-up come from
 * the example; a follow-up is answered by doing the step again); the returned context is sent back each time.
 * Fails when the walk is blocked or does not finish within `maxCalls`.
 */
export function walk(workflow: Workflow, maxCalls = 2000): WalkRecord {
  const record: WalkRecord = { calls: 0, steps: [], blocked: 0, followups: 0, answers: [] };
  let context = startingContext(workflow);
  const completed: string[] = [];
  let output: unknown;
  for (;;) {
    if (record.calls >= maxCalls) throw new Error(`${workflow.id}: not complete after ${maxCalls} calls (at ${completed[completed.length - 1]})`);
    record.calls++;
    const r = callNext(workflow, completed, context, output);
    record.answers.push(r);
    if (r.blocked) {
      record.blocked++;
      throw new Error(`${workflow.id}: blocked at ${r.step?.completionId}: ${JSON.stringify(r.blockers)}`);
    }
    if (r.followup) {
      record.followups++;
      completed.pop();
    }
    context = r.context;
    if (r.isComplete) return record;
    const step = r.step!;
    record.steps.push(step.completionId);
    const artifacts: unknown[] = [];
    if (step.outputContract) artifacts.push(step.outputContract.example);
    for (const a of (step.assessments ?? []) as AssessmentAnswer[]) artifacts.push(a.example);
    output = artifacts.length > 0 ? { notesMarkdown: `Did ${step.title}.`, artifacts } : undefined;
    completed.push(step.completionId);
  }
}
