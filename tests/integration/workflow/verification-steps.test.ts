import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compileCurrentWorkflow } from '../../../src/modules/workflow/domain/current-format/compile';
import type { LoopStep, PromptStep, Workflow } from '../../../src/modules/workflow/domain/types';
import { noopCallContext } from '../../../src/kernel/call-context';
import { LOCAL_IDENTITY } from '../../../src/kernel/identity';
import { workflowUseCases } from '../../unit/application/use-case-container';

/** Issue 24: WorkRail's verification, audit and synthesis steps, expanded as its compiler does and acting here. */

const routines: Record<string, Record<string, unknown>> = {
  'wr.routine-check': { id: 'wr.routine-check', steps: [{ id: 'lint', title: 'Lint {target}', prompt: 'Lint {target}.', verification: { command: 'true' } }] },
};

function compile(steps: unknown[], extra: Record<string, unknown> = {}) {
  return compileCurrentWorkflow({ id: 'wg.verify', name: 'Verify', description: 'd', version: '1.0.0', steps, ...extra }, (id) => routines[id]);
}

const proven = (command: string, more: Record<string, unknown> = {}) =>
  compile([
    { id: 'build', title: 'Build it', prompt: 'Write ok.txt.', verification: { command, prompt: 'Look at what the command printed.', ...more } },
    { id: 'ship', title: 'Ship it', prompt: 'Ship.' },
  ]).workflow;

describe('virtual steps: the expansion (ids, titles, prompts, loops, templates)', () => {
  it('verification, audit and synthesis follow their step with WorkRail ids, titles and the parent runCondition', () => {
    const { workflow, problems } = compile([
      { id: 'a', title: 'Implement', prompt: 'Do it.', runCondition: { var: 'x', equals: 1 }, verification: { command: 'npm test' }, audit: { rubric: ['No emojis', 'Compiles'] } },
      {
        id: 'p',
        type: 'parallel',
        title: 'Review',
        parallelDelegations: [
          { workflowId: 'wr.routine-review', goal: 'Find correctness bugs', allowedTools: ['read_file'] },
          { workflowId: 'wr.routine-review', goal: 'Find style problems' },
        ],
        synthesis: { outputContract: { contractRef: 'wr.contracts.review_verdict' } },
      },
    ]);
    expect(problems).toEqual([]);
    const ids = workflow.steps.map((s) => s.id);
    expect(ids).toEqual(['a', 'a__verification', 'a__audit', 'p', 'p__synthesis']);
    const [a, v, au, , syn] = workflow.steps as PromptStep[];
    expect(a.verification).toBeUndefined();
    expect(v).toMatchObject({ title: 'Verify: Implement', notesOptional: true, runCondition: { var: 'x', equals: 1 }, virtual: { kind: 'verification', parentStepId: 'a', command: 'npm test' } });
    expect(v.prompt).toContain('Run the following verification command to assert correctness:\n\n```bash\nnpm test\n```');
    expect(au).toMatchObject({ title: 'Audit: Implement', assessmentRefs: ['a__audit'], virtual: { kind: 'audit', bars: { r1: 'pass', r2: 'pass' } } });
    expect(au.prompt).toContain("Audit the results of step 'Implement'");
    expect(au.prompt).toContain('`r1`: No emojis');
    expect(workflow.assessments?.find((x) => x.id === 'a__audit')?.dimensions.map((d) => d.id)).toEqual(['r1', 'r2']);
    expect(syn).toMatchObject({ title: 'Synthesis: Review', outputContract: { contractRef: 'wr.contracts.review_verdict' }, virtual: { kind: 'synthesis', parentStepId: 'p' } });
  });

  it('inside an inline loop body and after a templateCall the ids carry the loop and the caller', () => {
    const { workflow, problems } = compile([
      { id: 'loop', type: 'loop', title: 'L', loop: { type: 'for', count: 2, maxIterations: 2 }, body: [{ id: 'fix', title: 'Fix', prompt: 'Fix.', verification: { command: 'true' } }] },
      { id: 'call', title: 'Check', templateCall: { templateId: 'wr.templates.routine.check', args: { target: 'src' } } },
    ]);
    expect(problems).toEqual([]);
    expect(((workflow.steps[0] as LoopStep).body as PromptStep[]).map((s) => s.id)).toEqual(['fix', 'fix__verification']);
    expect(workflow.steps.slice(1).map((s) => [s.id, s.title])).toEqual([
      ['call.lint', 'Lint src'],
      ['call.lint__verification', 'Verify: Lint src'],
    ]);
  });

  it('a verification without command, a loop naming a step with virtual steps and a generated id taken are problems naming the step', () => {
    const { problems } = compile([
      { id: 'a', title: 'A', prompt: 'x', verification: { prompt: 'check it' } },
      { id: 'b', title: 'B', prompt: 'x', audit: { rubric: ['ok'] } },
      { id: 'l', type: 'loop', title: 'L', loop: { type: 'for', count: 1, maxIterations: 1 }, body: 'b' },
      { id: 'c', title: 'C', prompt: 'x', verification: { command: 'true' } },
      { id: 'c__verification', title: 'mine', prompt: 'x' },
    ]);
    expect(problems.map((p) => p.message).join('\n')).toMatch(/step 'a': verification needs a command/);
    expect(problems.find((p) => /verification needs a command/.test(p.message))?.pointer).toBe('/steps/0/verification');
    expect(problems.map((p) => p.message).join('\n')).toMatch(/loop 'l' names step 'b', which has verification, audit or synthesis/);
    expect(problems.map((p) => p.message).join('\n')).toMatch(/step id 'c__verification' is generated by the verification of step 'c'/);
  });
});

describe('virtual steps in workflow_next (the server runs the command; real child processes)', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-verify-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a failing command blocks the verification step with its exit code and tails; fixed, it advances verified', async () => {
    const workflow = proven('echo checking; test -f ok.txt || { echo "ok.txt is missing" >&2; exit 3; }');
    const { next } = workflowUseCases([workflow]);
    const first = await next.execute({ workflowId: 'wg.verify', completedSteps: ['build'], workspacePath: dir });
    expect(first.step).toMatchObject({ id: 'build__verification', verificationCommand: { runsOn: "server", command: expect.stringContaining('test -f ok.txt') } });
    expect(first.guidance.prompt).toContain('The server verifies the previous step');

    const failed = await next.execute({ workflowId: 'wg.verify', completedSteps: ['build', 'build__verification'], context: first.context, workspacePath: dir });
    expect(failed.blocked).toBe(true);
    expect(failed.step?.completionId).toBe('build__verification');
    expect(failed.blockers?.[0]).toMatchObject({ code: 'verification_failed', message: expect.stringMatching(/exited 3 after \d+ ms/) });
    expect(failed.verification).toMatchObject({ ranBy: 'server', exitCode: 3, verified: false, stderrTail: 'ok.txt is missing\n', stdoutTail: 'checking\n' });
    expect(failed.guidance.prompt).toContain('ok.txt is missing');
    expect(failed.guidance.prompt).toContain('Look at what the command printed.');

    fs.writeFileSync(path.join(dir, 'ok.txt'), 'ok');
    const passed = await next.execute({ workflowId: 'wg.verify', completedSteps: ['build', 'build__verification'], context: failed.context, workspacePath: dir });
    expect(passed.blocked).toBeUndefined();
    expect(passed.step?.id).toBe('ship');
    expect(passed.verification).toMatchObject({ ranBy: 'server', exitCode: 0, verified: true, cwd: fs.realpathSync(dir) });
    // The same call again (the context it returned) does not run the command again.
    fs.rmSync(path.join(dir, 'ok.txt'));
    const again = await next.execute({ workflowId: 'wg.verify', completedSteps: ['build', 'build__verification'], context: passed.context, workspacePath: dir });
    expect(again.step?.id).toBe('ship');
    expect(again.verification).toBeUndefined();
  });

  it('a command past its timeout_ms is killed and blocks', async () => {
    const { next } = workflowUseCases([proven('sleep 30', { timeout_ms: 300 })]);
    const r = await next.execute({ workflowId: 'wg.verify', completedSteps: ['build', 'build__verification'], workspacePath: dir });
    expect(r.blocked).toBe(true);
    expect(r.verification).toMatchObject({ timedOut: true, verified: false, timeoutMs: 300 });
    expect(r.blockers?.[0].message).toMatch(/killed at its time limit/);
  });

  it('without the run scope, or without a workspace, the command is handed to the agent and marked unverified', async () => {
    const { next } = workflowUseCases([proven('false')]);
    const reader = noopCallContext(undefined, { name: 'reader', scopes: ['read', 'write'] });
    const shown = await next.execute({ workflowId: 'wg.verify', completedSteps: ['build'], workspacePath: dir }, reader);
    expect(shown.step?.verificationCommand).toEqual({ command: 'false', runsOn: 'agent', reason: 'no_run_scope' });
    expect(shown.guidance.prompt).toContain("The server does not run this command here: your identity lacks the 'run' scope");
    const done = await next.execute({ workflowId: 'wg.verify', completedSteps: ['build', 'build__verification'], workspacePath: dir }, reader);
    expect(done.step?.id).toBe('ship');
    expect(done.verification).toMatchObject({ ranBy: 'agent', reason: 'no_run_scope', verified: false, exitCode: null });
    const noWorkspace = await next.execute({ workflowId: 'wg.verify', completedSteps: ['build', 'build__verification'] }, noopCallContext(undefined, LOCAL_IDENTITY));
    expect(noWorkspace.verification).toMatchObject({ ranBy: 'agent', reason: 'no_workspace', verified: false });
  });

  it('a cancelled call kills the command and answers cancelled', async () => {
    const { next } = workflowUseCases([proven('sleep 30')]);
    const ac = new AbortController();
    const call = next.execute({ workflowId: 'wg.verify', completedSteps: ['build', 'build__verification'], workspacePath: dir }, noopCallContext(ac.signal));
    setTimeout(() => ac.abort(), 300);
    await expect(call).rejects.toMatchObject({ code: 'cancelled' });
  });
});

describe('audit and synthesis in workflow_next', () => {
  const audited = (): Workflow =>
    compile([
      { id: 'write', title: 'Write the doc', prompt: 'Write.', audit: { rubric: ['Every command is shown', { id: 'tone', criterion: 'Plain words', levels: ['poor', 'fine', 'great'], bar: 'fine' }] } },
      { id: 'end', title: 'End', prompt: 'End.' },
    ]).workflow;
  const assessment = (r1: string, tone: string) => ({ artifacts: [{ kind: 'wr.assessment', assessmentId: 'write__audit', dimensions: { r1, tone } }] });

  it('a dimension below its bar sends the agent back to the audited step with the note; at the bar it goes on', async () => {
    const { next } = workflowUseCases([audited()]);
    const audit = await next.execute({ workflowId: 'wg.verify', completedSteps: ['write'] });
    expect(audit.step).toMatchObject({ id: 'write__audit', assessments: [{ id: 'write__audit' }] });
    expect(audit.guidance.prompt).toContain('`tone`: Plain words (levels, lowest first: poor | fine | great; at least `fine` to pass)');
    const back = await next.execute({ workflowId: 'wg.verify', completedSteps: ['write', 'write__audit'], context: audit.context, output: { notesMarkdown: 'Step 3 hides its command.', ...assessment('partial', 'great') } });
    expect(back.step?.id).toBe('write');
    expect(back.sentBack).toMatchObject({ to: 'write', removeFromCompletedSteps: ['write', 'write__audit'] });
    expect(back.guidance.prompt).toContain('`r1` (Every command is shown): rated partial, needs at least pass');
    expect(back.guidance.prompt).toContain("The auditor's note:\nStep 3 hides its command.");
    const on = await next.execute({ workflowId: 'wg.verify', completedSteps: ['write', 'write__audit'], context: back.context, output: assessment('pass', 'fine') });
    expect(on.step?.id).toBe('end');
    expect(on.sentBack).toBeUndefined();
  });

  it('a synthesis step lists each delegation with its goal and result slot, and checks its output contract', async () => {
    const { workflow } = compile([
      {
        id: 'p',
        type: 'parallel',
        title: 'Review',
        parallelDelegations: [
          { workflowId: 'wr.routine-a', goal: 'Find correctness bugs', allowedTools: ['read_file', 'grep'] },
          { workflowId: 'wr.routine-b', goal: 'Find style problems', runCondition: { var: 'style', equals: true } },
        ],
        synthesis: { outputContract: { contractRef: 'wr.contracts.review_verdict' } },
      },
      { id: 'end', title: 'End', prompt: 'End.' },
    ]);
    const { next } = workflowUseCases([workflow]);
    const parallel = await next.execute({ workflowId: 'wg.verify', completedSteps: [], context: { style: false } });
    expect(parallel.guidance.prompt).toContain('`wr.routine-a`: Find correctness bugs');
    expect(parallel.guidance.prompt).toContain('allowed tools (a hint, not enforced) read_file, grep');
    const syn = await next.execute({ workflowId: 'wg.verify', completedSteps: ['p'], context: parallel.context });
    expect(syn.step).toMatchObject({ id: 'p__synthesis', delegations: [{ workflowId: 'wr.routine-a', goal: 'Find correctness bugs', slot: 'p.wr.routine-a' }] });
    expect(syn.guidance.prompt).toContain('- `p.wr.routine-a`: Find correctness bugs (workflow `wr.routine-a`)');
    const wrong = await next.execute({ workflowId: 'wg.verify', completedSteps: ['p', 'p__synthesis'], context: syn.context, output: { artifacts: [{ kind: 'wr.review_verdict', verdict: 'maybe' }] } });
    expect(wrong.blocked).toBe(true);
    expect(wrong.blockers?.[0].code).toBe('contract_artifact_invalid');
    const right = await next.execute({
      workflowId: 'wg.verify',
      completedSteps: ['p', 'p__synthesis'],
      context: syn.context,
      output: { artifacts: [{ kind: 'wr.review_verdict', verdict: 'minor', confidence: 'high', findings: [], summary: 'fine' }] },
    });
    expect(right.step?.id).toBe('end');
  });
});
