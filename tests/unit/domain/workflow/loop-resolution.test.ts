/**
 * Step resolution of loops (forEach, for, while, until): completion ids, loop info and bindings, maxIterations and
 * its note, a finished loop never reopening, nested loops, a body naming top-level steps. (Sequences, the returned
 * context, the resolved step as a copy: step-resolution.test.ts.)
 */
import { InvalidArgumentsError, InvalidWorkflowError } from '../../../../src/kernel/errors';
import type { Workflow } from '../../../../src/modules/workflow/domain/types';
import { loadWorkflow } from '../../application/workflow-test-helpers';
import { loop, next, prompt, walk, workflowOf } from './resolution-helpers';

describe('forEach loops', () => {
  const codeReview = loadWorkflow('tests/fixtures/workflows/code-review.json');

  test("code-review's forEach over files hands out one review per file with completionId, loop info and bindings", () => {
    const files = ['src/a.ts', 'src/b.ts', 'README.md'];
    const ctx = { files, changedLines: 10 };
    expect(next(codeReview, [], ctx).step?.id).toBe('gather');
    const first = next(codeReview, ['gather'], ctx);
    expect(first.step).toMatchObject({
      id: 'review',
      completionId: 'review-files[0].review',
      loop: { id: 'review-files', iteration: 0, item: 'src/a.ts' },
      prompt: 'Review src/a.ts. Report bugs, risky patterns and missing tests, each with the line.',
    });
    expect(first.context).toEqual({ files, changedLines: 10, file: 'src/a.ts', fileIndex: 0 });
    const third = next(codeReview, ['gather', 'review-files[0].review', 'review-files[1].review'], first.context);
    expect(third.step).toMatchObject({ completionId: 'review-files[2].review', loop: { iteration: 2, item: 'README.md' } });
    expect(third.context).toMatchObject({ file: 'README.md', fileIndex: 2 });
    const after = next(codeReview, ['gather', 'review-files[0].review', 'review-files[1].review', 'review-files[2].review'], third.context);
    expect(after.step?.id).toBe('summary');
    expect(after.context).toEqual({ files, changedLines: 10 });
  });

  test('a walk of code-review: threat-model only for large changes', () => {
    const small = walk(codeReview, { files: ['a.ts', 'b.ts'], changedLines: 30 });
    expect(small.ids).toEqual(['gather', 'review-files[0].review', 'review-files[1].review', 'summary']);
    const large = walk(codeReview, { files: ['a.ts'], changedLines: 900 });
    expect(large.ids).toEqual(['gather', 'threat-model', 'review-files[0].review', 'summary']);
  });

  test('an empty items array runs zero iterations', () => {
    expect(next(codeReview, ['gather'], { files: [], changedLines: 1 }).step?.id).toBe('summary');
  });

  test('missing items is an InvalidArgumentsError naming context.<items>', () => {
    expect(() => next(codeReview, ['gather'], { changedLines: 1 })).toThrow(InvalidArgumentsError);
    expect(() => next(codeReview, ['gather'], { files: 'a.ts' })).toThrow(/context\.files must be an array/);
  });

  test('a body step with a runCondition on the item is skipped per item; skipped iterations do not block', () => {
    const wf = workflowOf([
      loop('each', { type: 'forEach', items: 'files', itemVar: 'file', maxIterations: 10 }, [
        prompt('lint', { runCondition: { var: 'file', contains: '.ts' } }),
        prompt('read'),
      ]),
      prompt('end'),
    ]);
    const { ids } = walk(wf, { files: ['a.ts', 'b.md'] });
    expect(ids).toEqual(['each[0].lint', 'each[0].read', 'each[1].read', 'end']);
  });

  test('items can be an object item and placeholders reach into it', () => {
    const wf = workflowOf([
      loop('each', { type: 'forEach', items: 'tasks', itemVar: 'task', iterationVar: 'n', maxIterations: 5 }, [
        prompt('do', { prompt: 'Task {{n}}: {{task.title}} ({{task.owner.name}})' } as never),
      ]),
    ]);
    const r = next(wf, [], { tasks: [{ title: 'one', owner: { name: 'ada' } }] });
    expect(r.step?.prompt).toBe('Task 1: one (ada)');
    expect(r.step?.loop?.item).toEqual({ title: 'one', owner: { name: 'ada' } });
  });
});

describe('for loops', () => {
  const body = [prompt('x')];

  test('count as a number', () => {
    const wf = workflowOf([loop('l', { type: 'for', count: 3, indexVar: 'i', iterationVar: 'n', maxIterations: 10 }, body), prompt('end')]);
    const { ids, results } = walk(wf);
    expect(ids).toEqual(['l[0].x', 'l[1].x', 'l[2].x', 'end']);
    expect(results.slice(0, 3).map((r) => [r.context.i, r.context.n])).toEqual([[0, 1], [1, 2], [2, 3]]);
    expect(results[0].step?.loop).toEqual({ id: 'l', iteration: 0 });
  });

  test('count as the name of a context variable (numbers and numeric strings)', () => {
    const wf = workflowOf([loop('l', { type: 'for', count: 'rounds', maxIterations: 10 }, body)]);
    expect(walk(wf, { rounds: 2 }).ids).toEqual(['l[0].x', 'l[1].x']);
    expect(walk(wf, { rounds: '1' }).ids).toEqual(['l[0].x']);
    expect(walk(wf, { rounds: 0 }).ids).toEqual([]);
  });

  test('a missing count variable is an InvalidArgumentsError naming it', () => {
    const wf = workflowOf([loop('l', { type: 'for', count: 'rounds', maxIterations: 10 }, body)]);
    expect(() => next(wf, [], {})).toThrow(/context\.rounds must be a number/);
    expect(() => next(wf, [], { rounds: 'many' })).toThrow(InvalidArgumentsError);
  });
});

describe('while and until loops', () => {
  test('while: the condition is evaluated at the start of each iteration', () => {
    const wf = workflowOf([
      loop('fix', { type: 'while', condition: { var: 'failing', equals: true }, iterationVar: 'attempt', maxIterations: 10 }, [
        prompt('try', { prompt: 'Attempt {{attempt}}' } as never),
        prompt('check'),
      ]),
      prompt('done'),
    ]);
    expect(next(wf, [], { failing: false }).step?.id).toBe('done');
    const first = next(wf, [], { failing: true });
    expect(first.step).toMatchObject({ completionId: 'fix[0].try', prompt: 'Attempt 1' });
    // Mid-iteration the condition is not looked at again: the started iteration finishes.
    expect(next(wf, ['fix[0].try'], { failing: false }).step?.completionId).toBe('fix[0].check');
    expect(next(wf, ['fix[0].try', 'fix[0].check'], { failing: true }).step).toMatchObject({ completionId: 'fix[1].try', prompt: 'Attempt 2' });
    expect(next(wf, ['fix[0].try', 'fix[0].check'], { failing: false }).step?.id).toBe('done');
  });

  test('until: runs until the condition becomes true', () => {
    const wf = workflowOf([loop('u', { type: 'until', condition: { var: 'green', equals: true }, maxIterations: 10 }, [prompt('x')]), prompt('end')]);
    let rounds = 0;
    const { ids } = walk(wf, { green: false }, (r, ctx) => {
      if (r.step?.id === 'x' && ++rounds === 3) ctx.green = true;
      return ctx;
    });
    expect(ids).toEqual(['u[0].x', 'u[1].x', 'u[2].x', 'end']);
  });

  test('conditions can use the loop variables', () => {
    const wf = workflowOf([loop('l', { type: 'while', condition: { var: 'i', lt: 2 }, indexVar: 'i', maxIterations: 10 }, [prompt('x')])]);
    expect(walk(wf).ids).toEqual(['l[0].x', 'l[1].x']);
  });
});

describe('maxIterations', () => {
  test('a while loop whose condition never ends stops at maxIterations and the guidance note says so', () => {
    const wf = workflowOf([loop('spin', { type: 'while', condition: { var: 'go', equals: true }, maxIterations: 3 }, [prompt('x')]), prompt('end')]);
    const { ids, results } = walk(wf, { go: true });
    expect(ids).toEqual(['spin[0].x', 'spin[1].x', 'spin[2].x', 'end']);
    const endResult = results[3];
    expect(endResult.notes).toHaveLength(1);
    expect(endResult.notes[0]).toMatch(/spin.*maxIterations \(3\)/);
    expect(results[2].notes).toEqual([]);
  });

  test('forEach over more items than maxIterations: the note counts the items left', () => {
    const wf = workflowOf([loop('each', { type: 'forEach', items: 'xs', maxIterations: 2 }, [prompt('x')])]);
    const { ids, final } = walk(wf, { xs: [1, 2, 3, 4, 5] });
    expect(ids).toEqual(['each[0].x', 'each[1].x']);
    expect(final.notes[0]).toMatch(/3 of 5 items were not processed/);
  });

  test('reaching maxIterations exactly when the loop would end anyway adds no note', () => {
    const wf = workflowOf([loop('l', { type: 'for', count: 2, maxIterations: 2 }, [prompt('x')]), prompt('end')]);
    expect(next(wf, ['l[0].x', 'l[1].x']).notes).toEqual([]);
  });

  test('the note is gone once the step after the loop is done', () => {
    const wf = workflowOf([loop('l', { type: 'for', count: 9, maxIterations: 1 }, [prompt('x')]), prompt('a'), prompt('b')]);
    expect(next(wf, ['l[0].x']).notes).toHaveLength(1);
    expect(next(wf, ['l[0].x', 'a']).notes).toEqual([]);
  });

  test('a loop without a positive integer maxIterations is an InvalidWorkflowError', () => {
    const wf = workflowOf([loop('l', { type: 'for', count: 2 } as never, [prompt('x')])]);
    expect(() => next(wf, [])).toThrow(InvalidWorkflowError);
    expect(() => next(wf, [])).toThrow(/maxIterations/);
  });
});

describe('a finished loop never reopens', () => {
  const wf = workflowOf([
    loop('fix', { type: 'while', condition: { var: 'failing', equals: true }, maxIterations: 10 }, [prompt('x')]),
    prompt('report'),
    prompt('close'),
  ]);

  test('once a later step is completed, the loop stays finished even when its condition turns true again', () => {
    expect(next(wf, ['fix[0].x'], { failing: false }).step?.id).toBe('report');
    expect(next(wf, ['fix[0].x', 'report'], { failing: true }).step?.id).toBe('close');
    expect(next(wf, ['fix[0].x', 'report', 'close'], { failing: true }).isComplete).toBe(true);
  });

  test('a forEach loop does not reopen when items are added after a later step is done', () => {
    const each = workflowOf([loop('each', { type: 'forEach', items: 'xs', maxIterations: 10 }, [prompt('x')]), prompt('a'), prompt('b')]);
    expect(next(each, ['each[0].x', 'a'], { xs: [1, 2, 3] }).step?.id).toBe('b');
  });

  test('a loop that never started is passed once a later step is done', () => {
    expect(next(wf, ['report'], { failing: true }).step?.id).toBe('close');
  });

  test("the loop's own id in completedSteps closes it", () => {
    expect(next(wf, ['fix[0].x', 'fix'], { failing: true }).step?.id).toBe('report');
  });

  test('earlier iterations are sealed once a later one has started', () => {
    const each = workflowOf([
      loop('each', { type: 'forEach', items: 'xs', itemVar: 'v', maxIterations: 10 }, [prompt('a', { runCondition: { var: 'deep', equals: true } }), prompt('b')]),
    ]);
    // iteration 0 skipped `a`; once iteration 1 has started, turning `deep` on does not drag the agent back into it
    expect(next(each, ['each[0].b', 'each[1].b'], { xs: [1, 2, 3], deep: true }).step?.completionId).toBe('each[1].a');
    // within the current iteration the first eligible step not done is next (issue 11)
    expect(next(each, ['each[0].b'], { xs: [1, 2], deep: true }).step?.completionId).toBe('each[0].a');
  });

  test('a loop with a false runCondition is skipped', () => {
    const cond = workflowOf([
      loop('l', { type: 'for', count: 2, maxIterations: 5 }, [prompt('x')], { runCondition: { var: 'enabled', equals: true } }),
      prompt('end'),
    ]);
    expect(next(cond, [], {}).step?.id).toBe('end');
    expect(next(cond, [], { enabled: true }).step?.completionId).toBe('l[0].x');
    // once started, the runCondition is not looked at again
    expect(next(cond, ['l[0].x'], { enabled: false }).step?.completionId).toBe('l[1].x');
  });
});

describe('nested loops', () => {
  const wf: Workflow = workflowOf([
    loop(
      'modules',
      { type: 'forEach', items: 'modules', itemVar: 'mod', indexVar: 'm', maxIterations: 10 },
      [
        prompt('open', { prompt: 'Open {{mod.name}}' } as never),
        loop('passes', { type: 'for', count: 2, indexVar: 'p', iterationVar: 'pass', maxIterations: 5 }, [
          prompt('inspect', { prompt: 'Pass {{pass}} over {{mod.name}} ({{m}}/{{p}})' } as never),
        ]),
        loop('files', { type: 'forEach', items: 'mod.files', itemVar: 'file', maxIterations: 5 }, [prompt('read', { prompt: 'Read {{file}}' } as never)]),
      ],
    ),
    prompt('end'),
  ]);
  const ctx = { modules: [{ name: 'core', files: ['a.ts'] }, { name: 'cli', files: [] }] };

  test('completion ids nest and loop info carries the parent loop', () => {
    const { ids, results } = walk(wf, ctx);
    expect(ids).toEqual([
      'modules[0].open',
      'modules[0].passes[0].inspect',
      'modules[0].passes[1].inspect',
      'modules[0].files[0].read',
      'modules[1].open',
      'modules[1].passes[0].inspect',
      'modules[1].passes[1].inspect',
      'end',
    ]);
    expect(results[2].step).toMatchObject({
      prompt: 'Pass 2 over core (0/1)',
      loop: { id: 'passes', iteration: 1, parent: { id: 'modules', iteration: 0, item: { name: 'core', files: ['a.ts'] } } },
    });
    expect(results[3].step?.prompt).toBe('Read a.ts');
    expect(results[5].context).toMatchObject({ m: 1, p: 0, pass: 1, mod: { name: 'cli' } });
  });
});

describe('body naming top-level steps', () => {
  test('a body naming a step id runs that step inside the loop only', () => {
    const wf = workflowOf([
      prompt('setup'),
      loop('l', { type: 'for', count: 2, maxIterations: 5 }, 'work'),
      prompt('work', { prompt: 'Work item' } as never),
      prompt('end'),
    ]);
    expect(walk(wf).ids).toEqual(['setup', 'l[0].work', 'l[1].work', 'end']);
  });

  test('a body naming several ids runs them in the order named, wherever they stand', () => {
    const wf = workflowOf([
      prompt('b'),
      loop('l', { type: 'for', count: 1, maxIterations: 5 }, ['a', 'b']),
      prompt('a'),
      prompt('end'),
    ]);
    expect(walk(wf).ids).toEqual(['l[0].a', 'l[0].b', 'end']);
  });

  test('an unknown body id is an InvalidWorkflowError naming it', () => {
    const wf = workflowOf([loop('l', { type: 'for', count: 1, maxIterations: 5 }, 'ghost')]);
    expect(() => next(wf, [])).toThrow(/unknown step 'ghost'/);
  });

  test('a loop containing itself through named bodies is an InvalidWorkflowError, not a stack overflow', () => {
    const wf = workflowOf([
      loop('outer', { type: 'for', count: 1, maxIterations: 5 }, 'a'),
      loop('a', { type: 'for', count: 1, maxIterations: 5 }, 'b'),
      loop('b', { type: 'for', count: 1, maxIterations: 5 }, 'a'),
      prompt('end'),
    ]);
    expect(() => next(wf, [])).toThrow(InvalidWorkflowError);
    expect(() => next(wf, [])).toThrow(/loop 'a' contains itself/);
  });
});
