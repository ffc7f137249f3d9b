import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createTestContainer } from '../../../src/server/container';
import { WorkflowTokens } from '../../../src/modules/workflow';
import type { UseCase } from '../../../src/kernel/use-case';
import { noopCallContext, type CallContext } from '../../../src/kernel/call-context';

/** Issue 24 in durable sessions: verification runs recorded in the timeline, attempts counted, audits sending back. */

export const VERIFY_WORKFLOW = {
  id: 'wg.session-verify',
  name: 'Session verify',
  description: 'A step proven by a command, then an audited one.',
  version: '1.0.0',
  steps: [
    { id: 'build', title: 'Build it', prompt: 'Write ok.txt.', verification: { command: 'test -f ok.txt || { echo "no ok.txt" >&2; exit 4; }', prompt: 'Create ok.txt.' } },
    { id: 'write', title: 'Write the notes', prompt: 'Write notes.', audit: { rubric: ['Names every file'] } },
    { id: 'end', title: 'End', prompt: 'End.' },
  ],
};

export function verifyFixture(opts: { maxAttempts?: number; agentOnly?: boolean } = {}) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-vsess-'));
  const workflows = path.join(root, 'workflows');
  const workspace = path.join(root, 'ws');
  fs.mkdirSync(workflows);
  fs.mkdirSync(workspace);
  fs.writeFileSync(path.join(workflows, 'verify.json'), JSON.stringify(VERIFY_WORKFLOW));
  const container = createTestContainer({
    dataDir: path.join(root, 'data'),
    workflowSources: [{ dir: workflows, source: 'flag' }],
    workflowCacheTtlMs: 0,
    verification: { maxAttempts: opts.maxAttempts ?? 5, timeoutMs: 60_000, agentOnly: opts.agentOnly ?? false },
  });
  const call = <O = any>(token: symbol, input: unknown, ctx: CallContext = noopCallContext()): Promise<O> =>
    Promise.resolve(container.resolve<UseCase<unknown, O>>(token).execute(input, ctx));
  return {
    root,
    workspace,
    start: (input: Record<string, unknown>, ctx?: CallContext) => call(WorkflowTokens.StartSession, { workflowId: VERIFY_WORKFLOW.id, workspacePath: workspace, ...input }, ctx),
    next: (input: Record<string, unknown>, ctx?: CallContext) => call(WorkflowTokens.ContinueSession, input, ctx),
    timeline: (sessionId: string) => call(WorkflowTokens.GetSessionTimeline, { sessionId }),
    cleanup: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

describe('verification steps in sessions (files; real child processes)', () => {
  let f: ReturnType<typeof verifyFixture>;
  afterEach(() => f.cleanup());

  it('failing command → blocked with the tail and a verification_run event; fixed → verified, advanced, recorded', async () => {
    f = verifyFixture();
    const s = await f.start({});
    const v = await f.next({ continueToken: s.continueToken, output: { notesMarkdown: 'built' } });
    expect(v.step).toMatchObject({ id: 'build__verification', verificationCommand: { runsOn: 'server' } });
    expect(v.guidance.prompt).toContain('call workflow_continue, it runs this command in the workspace itself');

    const failed = await f.next({ continueToken: v.continueToken });
    expect(failed.status).toBe('blocked');
    expect(failed.step.id).toBe('build__verification');
    expect(failed).toMatchObject({ attempt: 1, maxAttempts: 5, attemptsExhausted: false, blockers: [{ code: 'verification_failed' }] });
    expect(failed.verification).toMatchObject({ ranBy: 'server', exitCode: 4, stderrTail: 'no ok.txt\n', verified: false });
    expect(failed.guidance.prompt).toContain('no ok.txt');
    expect(failed.guidance.prompt).toContain('Create ok.txt.');

    // The same (empty) call after a fix is no replay: the command runs again.
    fs.writeFileSync(path.join(f.workspace, 'ok.txt'), 'ok');
    const passed = await f.next({ continueToken: failed.retryToken });
    expect(passed.status).toBe('advanced');
    expect(passed.step.id).toBe('write');
    expect(passed.verification).toMatchObject({ ranBy: 'server', exitCode: 0, verified: true });

    const t = await f.timeline(s.sessionId);
    const kinds = t.events.map((e: { kind: string }) => e.kind);
    expect(kinds).toEqual(['session_started', 'step_completed', 'verification_run', 'output_blocked', 'verification_run', 'step_completed']);
    expect(t.events[2]).toMatchObject({ stepId: 'build__verification', parentStepId: 'build', exitCode: 4, verified: false, attempt: 1, ranBy: 'server', actor: { name: 'local' } });
    expect(t.events[4]).toMatchObject({ exitCode: 0, verified: true, attempt: 2, cwd: fs.realpathSync(f.workspace) });
  });

  it('after --max-verification-attempts failures in a row the session needs a person', async () => {
    f = verifyFixture({ maxAttempts: 2 });
    const s = await f.start({});
    const v = await f.next({ continueToken: s.continueToken, output: { notesMarkdown: 'built' } });
    const one = await f.next({ continueToken: v.continueToken });
    const two = await f.next({ continueToken: one.retryToken });
    expect(two).toMatchObject({ status: 'blocked', attempt: 2, maxAttempts: 2, attemptsExhausted: true, sessionStatus: 'needs_attention' });
    expect(two.guidance.prompt).toContain('attempts exhausted (2 of 2)');
  });

  it('an identity without run gets the agent-run path, recorded unverified in the timeline', async () => {
    f = verifyFixture();
    const writer = noopCallContext(undefined, { name: 'writer', scopes: ['read', 'write'] });
    const s = await f.start({}, writer);
    const v = await f.next({ continueToken: s.continueToken, output: { notesMarkdown: 'built' } }, writer);
    expect(v.step.verificationCommand).toEqual({ command: expect.any(String), runsOn: 'agent', reason: 'no_run_scope' });
    expect(v.guidance.prompt).toContain('this step is recorded as unverified');
    const done = await f.next({ continueToken: v.continueToken, output: { notesMarkdown: 'ran it: exit 0' } }, writer);
    expect(done.step.id).toBe('write');
    const t = await f.timeline(s.sessionId);
    expect(t.events.find((e: { kind: string }) => e.kind === 'verification_run')).toMatchObject({ ranBy: 'agent', reason: 'no_run_scope', verified: false, exitCode: null, actor: { name: 'writer' } });
  });

  it('cancelling the call kills the command, records a cancelled run (no attempt) and leaves the step current', async () => {
    f = verifyFixture();
    fs.writeFileSync(path.join(f.root, 'workflows', 'verify.json'), JSON.stringify({ ...VERIFY_WORKFLOW, steps: [{ ...VERIFY_WORKFLOW.steps[0], verification: { command: 'sleep 30' } }, VERIFY_WORKFLOW.steps[2]] }));
    const s = await f.start({});
    const v = await f.next({ continueToken: s.continueToken, output: { notesMarkdown: 'built' } });
    const ac = new AbortController();
    const started = Date.now();
    const call = f.next({ continueToken: v.continueToken }, noopCallContext(ac.signal));
    setTimeout(() => ac.abort(), 400);
    await expect(call).rejects.toMatchObject({ code: 'cancelled' });
    expect(Date.now() - started).toBeLessThan(10_000);
    const t = await f.timeline(s.sessionId);
    expect(t.step.completionId).toBe('build__verification');
    expect(t.events[t.events.length - 1]).toMatchObject({ kind: 'verification_run', cancelled: true, verified: false, attempt: 1 });
  });

  it('an audit below its bar forks the run back to the audited step with the note; at the bar it goes on', async () => {
    f = verifyFixture({ agentOnly: true });
    const s = await f.start({});
    let a = await f.next({ continueToken: s.continueToken, output: { notesMarkdown: 'built' } });
    expect(a.step.verificationCommand).toMatchObject({ runsOn: 'agent', reason: 'disabled' });
    a = await f.next({ continueToken: a.continueToken, output: { notesMarkdown: 'exit 0' } });
    a = await f.next({ continueToken: a.continueToken, output: { notesMarkdown: 'notes v1' } });
    expect(a.step.id).toBe('write__audit');
    const low = { kind: 'wr.assessment', assessmentId: 'write__audit', dimensions: { r1: 'partial' } };
    const back = await f.next({ continueToken: a.continueToken, output: { notesMarkdown: 'misses b.ts', artifacts: [low] } });
    expect(back.step.id).toBe('write');
    expect(back.sentBack).toMatchObject({ to: 'write' });
    expect(back.guidance.prompt).toContain("The auditor's note:\nmisses b.ts");
    const again = await f.next({ continueToken: back.continueToken, output: { notesMarkdown: 'notes v2' } });
    expect(again.step.id).toBe('write__audit');
    const on = await f.next({ continueToken: again.continueToken, output: { artifacts: [{ ...low, dimensions: { r1: 'pass' } }] } });
    expect(on.step.id).toBe('end');
    const t = await f.timeline(s.sessionId);
    expect(t.events.find((e: { kind: string; via?: string }) => e.kind === 'forked')).toMatchObject({ via: 'audit', audit: { completionId: 'write__audit', notesMarkdown: 'misses b.ts' } });
  });
});
