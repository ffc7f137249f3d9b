import * as fs from 'node:fs';
import * as path from 'node:path';
import { sessionProgress } from '../../../../../src/modules/workflow/domain/sessions';
import type { Workflow } from '../../../../../src/modules/workflow/domain/types';

/** The bundled fix-failing-test workflow: a conditional step (stabilise) and a loop (fix-attempts). */
const workflow = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../../../workflows/fix-failing-test.json'), 'utf8')) as Workflow;
const at = (completionId: string) => ({ completionId });
const states = (p: ReturnType<typeof sessionProgress>) => Object.fromEntries(p.steps.map((s) => [s.stepId, s.state]));

describe('sessionProgress', () => {
  it('a complete session whose loop ran twice is total of total: the loop is done, the skipped step counts in neither', () => {
    const done = ['reproduce', 'locate', 'fix-attempts[0].hypothesis', 'fix-attempts[0].apply-fix', 'fix-attempts[1].hypothesis', 'fix-attempts[1].apply-fix', 'full-suite', 'explain'];
    const p = sessionProgress(workflow, done, null);
    expect(states(p)).toEqual({ reproduce: 'done', stabilise: 'skipped', locate: 'done', 'fix-attempts': 'done', 'full-suite': 'done', explain: 'done' });
    expect({ done: p.done, total: p.total, skipped: p.skipped }).toEqual({ done: 5, total: 5, skipped: 1 });
  });

  it('inside a loop iteration the loop is the current step; steps after it are pending', () => {
    const p = sessionProgress(workflow, ['reproduce', 'stabilise', 'locate', 'fix-attempts[0].hypothesis'], at('fix-attempts[0].apply-fix'));
    expect(states(p)).toEqual({ reproduce: 'done', stabilise: 'done', locate: 'done', 'fix-attempts': 'current', 'full-suite': 'pending', explain: 'pending' });
    expect({ done: p.done, total: p.total }).toEqual({ done: 3, total: 6 });
  });

  it('once the step after a loop is handed out the loop is done', () => {
    const p = sessionProgress(workflow, ['reproduce', 'locate', 'fix-attempts[0].hypothesis', 'fix-attempts[0].apply-fix'], at('full-suite'));
    expect(states(p)['fix-attempts']).toBe('done');
    expect(states(p)['full-suite']).toBe('current');
    expect({ done: p.done, total: p.total, skipped: p.skipped }).toEqual({ done: 3, total: 5, skipped: 1 });
  });

  it('a fresh session is 0 of all, the first step current, titles from the workflow', () => {
    const p = sessionProgress(workflow, [], at('reproduce'));
    expect(p.done).toBe(0);
    expect(p.total).toBe(6);
    expect(p.steps[0]).toEqual({ stepId: 'reproduce', title: 'Reproduce the failure', state: 'current' });
  });
});
