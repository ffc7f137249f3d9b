import { compileCurrentWorkflow } from '../../../src/modules/workflow/domain/current-format/compile';
import { callNext } from './workrail-helpers';

/** Issue 12 rules the fixtures do not exercise: an optional loop-control contract, and nested routine calls. */
describe('current format: optional loop control, nested routine calls', () => {
  const loopWorkflow = (required: boolean) =>
    compileCurrentWorkflow(
      {
        id: 'wg.optional-loop',
        name: 'n',
        description: 'd',
        version: '1.0.0',
        steps: [
          {
            id: 'pass-loop',
            type: 'loop',
            title: 'Passes',
            loop: { type: 'while', conditionSource: { kind: 'artifact_contract', contractRef: 'wr.contracts.loop_control', loopId: 'pass_loop' }, maxIterations: 3 },
            body: [{ id: 'decide', title: 'Decide', prompt: 'Another pass?', outputContract: { contractRef: 'wr.contracts.loop_control', required } }],
          },
          { id: 'done', title: 'Done', prompt: 'Wrap up.' },
        ],
      },
      () => undefined,
    );

  it('a loop whose loop-control contract is not required goes on when the artifact is missing, and stops on stop', () => {
    const { workflow, problems } = loopWorkflow(false);
    expect(problems).toEqual([]);
    const first = callNext(workflow, [], {});
    expect(first.step?.completionId).toBe('pass-loop[0].decide');
    const noArtifact = callNext(workflow, ['pass-loop[0].decide'], first.context, { notesMarkdown: 'no decision sent' });
    expect(noArtifact.blocked).toBeFalsy();
    expect(noArtifact.step?.completionId).toBe('pass-loop[1].decide');
    const stop = callNext(workflow, ['pass-loop[0].decide', 'pass-loop[1].decide'], noArtifact.context, { artifacts: [{ kind: 'wr.loop_control', decision: 'stop' }] });
    expect(stop.step?.completionId).toBe('done');
  });

  it('where the contract is required, the same missing artifact blocks', () => {
    const { workflow } = loopWorkflow(true);
    const first = callNext(workflow, [], {});
    const blocked = callNext(workflow, ['pass-loop[0].decide'], first.context, { notesMarkdown: 'no decision sent' });
    expect(blocked.blocked).toBe(true);
    expect(blocked.step?.completionId).toBe('pass-loop[0].decide');
    expect(blocked.blockers?.[0]).toMatchObject({ code: expect.stringMatching(/missing/) });
  });

  it('a routine that itself calls a routine (or holds a loop) is refused, naming it', () => {
    const routines: Record<string, Record<string, unknown>> = {
      'wr.routine-outer': { id: 'wr.routine-outer', steps: [{ id: 'inner', title: 'I', templateCall: { templateId: 'wr.templates.routine.leaf' } }] },
      'wr.routine-looping': { id: 'wr.routine-looping', steps: [{ id: 'l', type: 'loop', title: 'L', loop: { type: 'for', count: 1, maxIterations: 1 }, body: [] }] },
    };
    const { problems } = compileCurrentWorkflow(
      {
        id: 'wg.nested',
        name: 'n',
        description: 'd',
        version: '1.0.0',
        steps: [
          { id: 'a', title: 'A', templateCall: { templateId: 'wr.templates.routine.outer' } },
          { id: 'b', title: 'B', templateCall: { templateId: 'wr.templates.routine.looping' } },
        ],
      },
      (id) => routines[id],
    );
    expect(problems).toEqual([
      { pointer: '/steps/0/templateCall', message: expect.stringMatching(/routine 'wr\.routine-outer' step 'inner' is a templateCall.*nested calls are refused/) },
      { pointer: '/steps/1/templateCall', message: expect.stringMatching(/routine 'wr\.routine-looping' step 'l' is a loop/) },
    ]);
  });
});
