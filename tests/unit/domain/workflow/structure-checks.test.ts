import { checkWorkflowStructure } from '../../../../src/modules/workflow/domain/structure-checks';
import type { Workflow } from '../../../../src/modules/workflow/domain/types';
import { loadWorkflow } from '../../application/workflow-test-helpers';
import { prompt, workflowOf } from './resolution-helpers';

const loopCfg = { type: 'for' as const, count: 1, maxIterations: 3 };

describe('checkWorkflowStructure', () => {
  test.each(['tests/fixtures/workflows/code-review.json', 'workflows/implement-feature.json', 'workflows/fix-failing-test.json', 'workflows/review-change.json'])(
    '%s has a sound structure',
    (file) => {
      expect(checkWorkflowStructure(loadWorkflow(file))).toEqual([]);
    },
  );

  test('duplicate step ids, inline bodies included, point at the second occurrence', () => {
    const wf = workflowOf([prompt('a'), { id: 'l', type: 'loop', title: 'L', loop: loopCfg, body: [prompt('a'), prompt('b')] }, prompt('b')]);
    expect(checkWorkflowStructure(wf)).toEqual([
      { path: '/steps/1/body/0/id', message: "duplicate step id 'a' (already used at /steps/0/id); step ids must be unique" },
      { path: '/steps/2/id', message: "duplicate step id 'b' (already used at /steps/1/body/1/id); step ids must be unique" },
    ]);
  });

  test('a body naming an unknown id, an inline step, itself or the same step twice', () => {
    const wf = workflowOf([
      { id: 'l1', type: 'loop', title: 'L1', loop: loopCfg, body: 'ghost' },
      { id: 'l2', type: 'loop', title: 'L2', loop: loopCfg, body: ['l2', 'x', 'x'] },
      { id: 'l3', type: 'loop', title: 'L3', loop: loopCfg, body: [prompt('inner')] },
      { id: 'l4', type: 'loop', title: 'L4', loop: loopCfg, body: 'inner' },
      prompt('x'),
    ]);
    const issues = checkWorkflowStructure(wf);
    expect(issues).toEqual([
      { path: '/steps/0/body', message: "loop 'l1' body names unknown step 'ghost'; expected the id of a top-level step" },
      { path: '/steps/1/body/0', message: expect.stringContaining("loop 'l2' body names the loop itself") },
      { path: '/steps/1/body/2', message: expect.stringContaining("names step 'x' twice") },
      { path: '/steps/3/body', message: expect.stringContaining("'inner', which is not a top-level step (it is at /steps/2/body/0)") },
    ]);
  });

  test('loops containing each other through named bodies are reported once', () => {
    const wf: Workflow = workflowOf([
      { id: 'a', type: 'loop', title: 'A', loop: loopCfg, body: 'b' },
      { id: 'b', type: 'loop', title: 'B', loop: loopCfg, body: [{ id: 'c', type: 'loop', title: 'C', loop: loopCfg, body: 'a' }] },
    ]);
    const issues = checkWorkflowStructure(wf);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toEqual({ path: '/steps/0/body', message: 'loops contain each other through their bodies: a -> b -> c -> a' });
  });

  test('tolerates a document without steps', () => {
    expect(checkWorkflowStructure({} as Workflow)).toEqual([]);
  });
});
