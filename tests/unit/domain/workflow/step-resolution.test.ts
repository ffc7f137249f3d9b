/**
 * Step resolution (the pure `resolveNextStep` behind workflow_next) without loops: steps in order, skipped steps and
 * placeholders, a returned context sent back unchanged, and the resolved step a copy. (Loops:
 * loop-resolution.test.ts.)
 */
import type { Workflow, WorkflowStep as WorkflowStepAny } from '../../../../src/modules/workflow/domain/types';
import { loadWorkflow } from '../../application/workflow-test-helpers';
import { loop, next, prompt, workflowOf } from './resolution-helpers';

describe('sequences and skipped steps', () => {
  const wf = workflowOf([prompt('a'), prompt('b'), prompt('c')]);

  test('steps come in order, with completionId equal to the id, then completion', () => {
    expect(next(wf, []).step).toMatchObject({ id: 'a', completionId: 'a', prompt: 'Do a' });
    expect(next(wf, ['a']).step?.id).toBe('b');
    expect(next(wf, ['a', 'b']).step?.id).toBe('c');
    const done = next(wf, ['a', 'b', 'c']);
    expect(done).toMatchObject({ step: null, isComplete: true });
    expect(next(wf, []).step?.loop).toBeUndefined();
  });

  test('a step whose runCondition is false is skipped and never blocks completion', () => {
    const conditional = workflowOf([prompt('a'), prompt('b', { runCondition: { var: 'big', equals: true } }), prompt('c')]);
    expect(next(conditional, ['a'], { big: false }).step?.id).toBe('c');
    expect(next(conditional, ['a'], {}).step?.id).toBe('c');
    expect(next(conditional, ['a'], { big: true }).step?.id).toBe('b');
    expect(next(conditional, ['a', 'c'], { big: false })).toMatchObject({ isComplete: true, step: null });
  });

  test('a workflow whose every step is skipped is complete at once', () => {
    const none = workflowOf([prompt('a', { runCondition: { var: 'x', equals: 1 } })]);
    expect(next(none, [], {})).toMatchObject({ isComplete: true, step: null });
  });

  test('a later step never completes an earlier one: a step skipped before comes back when its condition holds (issue 11)', () => {
    const conditional = workflowOf([prompt('a'), prompt('b', { runCondition: { var: 'big', equals: true } }), prompt('c'), prompt('d')]);
    expect(next(conditional, ['a', 'c'], { big: true }).step?.id).toBe('b');
    expect(next(conditional, ['a', 'c'], {}).step?.id).toBe('d');
    expect(next(conditional, ['d']).step?.id).toBe('a');
    expect(next(conditional, ['d']).isComplete).toBe(false);
  });

  test('the result is the same whatever the order of completedSteps', () => {
    expect(next(wf, ['b', 'a']).step?.id).toBe('c');
  });

  test('{{placeholders}} in title, prompt, agentRole and guidance are filled from the context, dotted paths too', () => {
    const wf2 = workflowOf([
      prompt('a', {
        title: 'Fix {{issue.id}}',
        prompt: 'Fix {{ issue.title }} in {{repo}}; labels {{issue.labels}}; keep {{unknown.var}}',
        agentRole: 'You maintain {{repo}}',
        guidance: ['Mention #{{issue.id}}'],
      } as never),
    ]);
    const step = next(wf2, [], { repo: 'workgraph', issue: { id: 7, title: 'the crash', labels: ['bug'] } }).step!;
    expect(step.title).toBe('Fix 7');
    expect(step.prompt).toBe('Fix the crash in workgraph; labels ["bug"]; keep {{unknown.var}}');
    expect(step.agentRole).toBe('You maintain workgraph');
    expect(step.guidance).toEqual(['Mention #7']);
  });
});

describe('the returned context can be sent back unchanged', () => {
  const workflows: [string, Workflow, Record<string, unknown>][] = [
    ['code-review', loadWorkflow('tests/fixtures/workflows/code-review.json'), { files: ['a.ts', 'b.ts'], changedLines: 600 }],
    [
      'while over its own index',
      workflowOf([loop('l', { type: 'while', condition: { var: 'i', lt: 3 }, indexVar: 'i', iterationVar: 'n', maxIterations: 10 }, [prompt('x'), prompt('y')]), prompt('end')]),
      {},
    ],
    [
      'item var shadowing a context value',
      workflowOf([
        prompt('start', { runCondition: { not: { var: 'item', equals: 'z' } } }),
        loop('l', { type: 'forEach', items: 'xs', itemVar: 'item', maxIterations: 10 }, [prompt('x', { runCondition: { var: 'item', not_equals: 'skip' } })]),
        prompt('end', { runCondition: { not: { var: 'item', equals: 'z' } } }),
      ]),
      { xs: ['a', 'skip', 'z'] },
    ],
  ];

  test.each(workflows)('%s: every answer repeats when its own context is sent back, any number of times', (_name, wf, ctx) => {
    const completed: string[] = [];
    let context = ctx;
    for (let n = 0; n < 50; n++) {
      const result = next(wf, completed, context);
      for (let again = 0; again < 3; again++) {
        expect(next(wf, completed, result.context)).toEqual(result);
      }
      if (result.isComplete) return;
      completed.push(result.step!.completionId);
      context = result.context;
    }
    throw new Error('did not complete');
  });

  test('loop variables left over from an earlier answer do not change the decision', () => {
    const wf = workflowOf([
      prompt('start'),
      loop('l', { type: 'while', condition: { var: 'i', lt: 2 }, indexVar: 'i', maxIterations: 10 }, [prompt('x')]),
      prompt('end'),
    ]);
    const stale = { i: 99 };
    expect(next(wf, ['start'], stale).step?.completionId).toBe('l[0].x');
    expect(next(wf, ['start'], stale).context).toEqual({ i: 0 });
    expect(next(wf, ['start', 'l[0].x', 'l[1].x'], { i: 1 }).context).toEqual({});
  });
});

describe('the resolved step is a copy of the step', () => {
  test('every field but `type` is carried over, the workflow step itself is untouched', () => {
    const step = prompt('a', { agentRole: 'Reviewer', guidance: ['g1'], askForFiles: true } as Partial<WorkflowStepAny>);
    const wf = workflowOf([step]);
    const resolved = next(wf, []).step!;
    expect(resolved).toMatchObject({ id: 'a', agentRole: 'Reviewer', guidance: ['g1'], askForFiles: true, completionId: 'a' });
    expect('type' in resolved).toBe(false);
    resolved.title = 'changed';
    expect(step.title).toBe('Title a');
  });

  test('a `__proto__` key read from a workflow file stays data: the copy keeps Object.prototype', () => {
    const step = JSON.parse('{"id":"a","title":"A","prompt":"Do a","__proto__":{"polluted":true}}');
    const resolved = next(workflowOf([step]), []).step! as unknown as Record<string, unknown>;
    expect(Object.getPrototypeOf(resolved)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(resolved, '__proto__')).toBe(true);
    expect((resolved as { polluted?: unknown }).polluted).toBeUndefined();
  });
});
