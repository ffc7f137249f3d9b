import { buildCompletionGuidance, buildStepGuidance } from '../../../../src/modules/workflow/domain/guidance';
import { contextForLookup, findStep } from '../../../../src/modules/workflow/domain/step-lookup';
import { highestStartedIteration, parseCompletionId } from '../../../../src/modules/workflow/domain/completion-id';
import { loadWorkflow } from '../../application/workflow-test-helpers';
import { next, prompt, workflowOf } from './resolution-helpers';

const codeReview = loadWorkflow('tests/fixtures/workflows/code-review.json');

describe('guidance prompt', () => {
  test('role, prompt and guidance each under their own heading, in that order', () => {
    const r = next(codeReview, []);
    const text = buildStepGuidance(r.step!, r.notes);
    expect(text).toMatch(/^## Role\nYou are a careful reviewer who reads before judging\./);
    const role = text.indexOf('## Role');
    const task = text.indexOf('## Task: Gather the change\nList every file the change touches.');
    const guidance = text.indexOf('## Guidance\n- Include renamed and deleted files');
    expect(role).toBeGreaterThanOrEqual(0);
    expect(task).toBeGreaterThan(role);
    expect(guidance).toBeGreaterThan(task);
    expect(text).toContain('"gather"');
  });

  test('no Role heading without an agentRole; the loop, the completion id and notes are stated', () => {
    const wf = workflowOf([
      { id: 'l', type: 'loop', title: 'L', loop: { type: 'for', count: 5, maxIterations: 1 }, body: [prompt('x')] },
      prompt('y', { requireConfirmation: true, askForFiles: true } as never),
    ]);
    const inLoop = next(wf, []);
    const loopText = buildStepGuidance(inLoop.step!, inLoop.notes);
    expect(loopText).not.toContain('## Role');
    expect(loopText).toContain("loop 'l', iteration 1");
    expect(loopText).toContain('"l[0].x"');
    const after = next(wf, ['l[0].x']);
    const text = buildStepGuidance(after.step!, after.notes);
    expect(text).toMatch(/## Note\n- Loop 'L' \(l\) stopped at its maxIterations \(1\)/);
    expect(text).toMatch(/confirm/);
    expect(text).toMatch(/files/);
  });

  test('completion guidance names the workflow and carries notes', () => {
    expect(buildCompletionGuidance(codeReview)).toContain("Workflow 'Code Review' is complete");
    expect(buildCompletionGuidance(codeReview, ['capped'])).toContain('## Note\n- capped');
  });
});

describe('completion ids', () => {
  test('parse plain and nested ids', () => {
    expect(parseCompletionId('summary')).toEqual({ loops: [], stepId: 'summary' });
    expect(parseCompletionId('outer[0].inner[12].step')).toEqual({
      loops: [
        { loopId: 'outer', iteration: 0 },
        { loopId: 'inner', iteration: 12 },
      ],
      stepId: 'step',
    });
    expect(parseCompletionId('outer[x].step')).toBeUndefined();
    expect(parseCompletionId('outer[0]')).toBeUndefined();
    expect(parseCompletionId('outer[0].')).toBeUndefined();
  });

  test('highest started iteration ignores other loops with a shared prefix', () => {
    expect(highestStartedIteration('l', ['l[0].a', 'l[3].b', 'll[9].a', 'x.l[7].a'])).toBe(3);
    expect(highestStartedIteration('l', ['a'])).toBe(-1);
  });
});

describe('findStep', () => {
  test('by plain id, top-level or inside a loop body', () => {
    expect(findStep(codeReview, 'summary')?.step.id).toBe('summary');
    expect(findStep(codeReview, 'review')).toMatchObject({ step: { id: 'review' }, loops: [] });
    expect(findStep(codeReview, 'review-files')?.step.id).toBe('review-files');
  });

  test('by completion id, with the loops and iterations on the way', () => {
    const found = findStep(codeReview, 'review-files[2].review');
    expect(found?.step.id).toBe('review');
    expect(found?.loops.map((l) => [l.loop.id, l.iteration])).toEqual([['review-files', 2]]);
  });

  test('unknown ids, steps outside the named loop and iterations past maxIterations are not found', () => {
    expect(findStep(codeReview, 'nope')).toBeUndefined();
    expect(findStep(codeReview, 'review-files[0].summary')).toBeUndefined();
    expect(findStep(codeReview, 'gather[0].review')).toBeUndefined();
    expect(findStep(codeReview, 'review-files[50].review')).toBeUndefined();
    expect(findStep(codeReview, 'review-files[0]x')).toBeUndefined();
  });

  test('steps named by a body are found through the loop', () => {
    const wf = workflowOf([{ id: 'l', type: 'loop', title: 'L', loop: { type: 'for', count: 2, maxIterations: 5 }, body: 'w' }, prompt('w')]);
    expect(findStep(wf, 'l[1].w')?.step.id).toBe('w');
  });

  test('the loop variables of a completion id are bound for rule conditions', () => {
    const found = findStep(codeReview, 'review-files[1].review')!;
    expect(contextForLookup(found, { files: ['a', 'b'] })).toEqual({ files: ['a', 'b'], file: 'b', fileIndex: 1 });
    expect(contextForLookup(found, {})).toEqual({ fileIndex: 1 });
  });
});
