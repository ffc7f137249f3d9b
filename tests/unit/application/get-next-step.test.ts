import { InvalidArgumentsError, NotFoundError } from '../../../src/kernel/errors';
import { loadWorkflow } from './workflow-test-helpers';
import { workflowUseCases } from './use-case-container';

const codeReview = loadWorkflow('tests/fixtures/workflows/code-review.json');
const { next } = workflowUseCases([codeReview]);

describe('GetNextStep', () => {
  test('the first step with its guidance prompt and the context', async () => {
    const r = await next.execute({ workflowId: 'code-review', completedSteps: [] });
    expect(r.isComplete).toBe(false);
    expect(r.step).toMatchObject({ id: 'gather', completionId: 'gather', title: 'Gather the change' });
    expect(r.guidance.prompt).toContain('## Role\nYou are a careful reviewer');
    expect(r.guidance.prompt).toContain('## Task: Gather the change');
    expect(r.guidance.prompt).toContain('## Guidance\n- Include renamed and deleted files');
    expect(r.context).toEqual({});
  });

  test('a loop step: completionId, loop info, substituted prompt and bound variables', async () => {
    const r = await next.execute({ workflowId: 'code-review', completedSteps: ['gather'], context: { files: ['x.py'], changedLines: 3 } });
    expect(r.step).toMatchObject({ completionId: 'review-files[0].review', loop: { id: 'review-files', iteration: 0, item: 'x.py' } });
    expect(r.guidance.prompt).toContain('Review x.py.');
    expect(r.context).toEqual({ files: ['x.py'], changedLines: 3, file: 'x.py', fileIndex: 0 });
  });

  test('completion: step null, isComplete, guidance says so', async () => {
    const r = await next.execute({
      workflowId: 'code-review',
      completedSteps: ['gather', 'review-files[0].review', 'summary'],
      context: { files: ['x.py'], changedLines: 3 },
    });
    expect(r).toMatchObject({ step: null, isComplete: true });
    expect(r.guidance.prompt).toMatch(/complete/);
  });

  test('an unknown workflow is a NotFoundError from storage', async () => {
    await expect(next.execute({ workflowId: 'nope', completedSteps: [] })).rejects.toThrow(NotFoundError);
  });

  test('completedSteps must be strings; context must be an object', async () => {
    await expect(next.execute({ workflowId: 'code-review', completedSteps: [1] as never })).rejects.toThrow(InvalidArgumentsError);
    await expect(next.execute({ workflowId: 'code-review', completedSteps: [], context: [] as never })).rejects.toThrow(/context must be an object/);
  });

  test('a forEach loop reached without its items names the missing context variable', async () => {
    await expect(next.execute({ workflowId: 'code-review', completedSteps: ['gather'], context: {} })).rejects.toThrow(/context\.files/);
  });

  test('unknown completionIds are refused, naming them and listing the valid ones (issue 11)', async () => {
    const err = await next.execute({ workflowId: 'code-review', completedSteps: ['scoop'] }).catch((e) => e);
    expect(err).toBeInstanceOf(InvalidArgumentsError);
    expect(err.message).toContain("'scoop'");
    expect(err.message).toContain('gather');
    expect(err.message).toContain('review-files[i].review');
    // a loop iteration at or past maxIterations, or a step that is not in the loop's body, is unknown too
    await expect(next.execute({ workflowId: 'code-review', completedSteps: ['review-files[0].gather'] })).rejects.toThrow(/review-files\[0\]\.gather/);
    await expect(next.execute({ workflowId: 'code-review', completedSteps: ['review-files[999999].review'] })).rejects.toThrow(InvalidArgumentsError);
  });

  test('a later step does not complete the earlier ones: isComplete only when every eligible step is done (issue 11)', async () => {
    const r = await next.execute({ workflowId: 'code-review', completedSteps: ['summary'], context: { files: ['x.py'] } });
    expect(r.isComplete).toBe(false);
    expect(r.step?.completionId).toBe('gather');
  });

  test('the answer carries the step text once: in guidance.prompt, not again in step (issue 11)', async () => {
    const r = await next.execute({ workflowId: 'code-review', completedSteps: [] });
    expect(Object.keys(r.step!).sort()).toEqual(['completionId', 'hasValidation', 'id', 'title']);
    expect(JSON.stringify(r).split('careful reviewer').length - 1).toBe(1);
  });
});
