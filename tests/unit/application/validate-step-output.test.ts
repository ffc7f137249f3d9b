import { NotFoundError } from '../../../src/kernel/errors';
import type { Workflow } from '../../../src/modules/workflow/domain/types';
import { loadWorkflow } from './workflow-test-helpers';
import { workflowUseCases } from './use-case-container';

const codeReview = loadWorkflow('tests/fixtures/workflows/code-review.json');
const perFile: Workflow = {
  id: 'per-file',
  name: 'Per file',
  description: 'rule conditions on loop variables',
  version: '1.0.0',
  steps: [
    {
      id: 'each',
      type: 'loop',
      title: 'Each',
      loop: { type: 'forEach', items: 'files', itemVar: 'file', maxIterations: 10 },
      body: [
        {
          id: 'check',
          title: 'Check',
          prompt: 'Check {{file}}',
          validationCriteria: [{ type: 'contains', value: 'types', condition: { var: 'file', contains: '.ts' } }],
        },
      ],
    },
  ],
};
const { validate } = workflowUseCases([codeReview, perFile]);

describe('ValidateStepOutput', () => {
  test('by step id', async () => {
    expect(await validate.execute({ workflowId: 'code-review', stepId: 'gather', output: 'changed src/a.ts' })).toEqual({
      valid: true,
      issues: [],
      suggestions: [],
    });
    const bad = await validate.execute({ workflowId: 'code-review', stepId: 'gather', output: 'some files' });
    expect(bad.valid).toBe(false);
    expect(bad.issues[0]).toMatch(/^Name at least one file with its extension/);
  });

  test('by completion id', async () => {
    const ok = await validate.execute({ workflowId: 'code-review', stepId: 'review-files[3].review', output: 'Off-by-one on line 12 of the loop' });
    expect(ok.valid).toBe(true);
    const bad = await validate.execute({ workflowId: 'code-review', stepId: 'review-files[3].review', output: 'Looks fine to me overall, ship it' });
    expect(bad.valid).toBe(false);
    expect(bad.issues).toHaveLength(2);
  });

  test('schema rule of the summary, with a fenced answer', async () => {
    const ok = await validate.execute({ workflowId: 'code-review', stepId: 'summary', output: '```json\n{"verdict":"approve","findings":[]}\n```' });
    expect(ok.valid).toBe(true);
    const bad = await validate.execute({ workflowId: 'code-review', stepId: 'summary', output: '{"verdict":"lgtm","findings":[1]}' });
    expect(bad.issues).toEqual([
      'The summary must be the JSON object described: /verdict: must be one of "approve", "request-changes"',
      'The summary must be the JSON object described: /findings/0: must be string (got number)',
    ]);
  });

  test('rule conditions see the loop variables of the completion id', async () => {
    const ctx = { files: ['a.ts', 'b.md'] };
    expect((await validate.execute({ workflowId: 'per-file', stepId: 'each[0].check', output: 'fine', context: ctx })).valid).toBe(false);
    expect((await validate.execute({ workflowId: 'per-file', stepId: 'each[1].check', output: 'fine', context: ctx })).valid).toBe(true);
  });

  test('a step without criteria, and a loop step, are valid', async () => {
    expect((await validate.execute({ workflowId: 'code-review', stepId: 'threat-model', output: '' })).valid).toBe(true);
    expect((await validate.execute({ workflowId: 'code-review', stepId: 'review-files', output: '' })).valid).toBe(true);
  });

  test('an unknown step is a NotFoundError naming the step and the workflow', async () => {
    const call = validate.execute({ workflowId: 'code-review', stepId: 'review-files[0].nope', output: 'x' });
    await expect(call).rejects.toThrow(NotFoundError);
    await expect(validate.execute({ workflowId: 'code-review', stepId: 'ghost', output: 'x' })).rejects.toThrow(
      /step 'ghost' not found in workflow 'code-review'/,
    );
  });
});
