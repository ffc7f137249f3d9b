import * as fs from 'node:fs';
import * as path from 'node:path';
import { sessionFixture } from './session-fixture';
import { LOCAL_IDENTITY } from '../../../src/kernel/identity';

describe('durable sessions: start, continue, blocked, loop, complete', () => {
  let f: ReturnType<typeof sessionFixture>;
  beforeEach(() => (f = sessionFixture()));
  afterEach(() => f.cleanup());

  it('walks a loop and a blocked step to completion, with the context kept on the server', async () => {
    const s = await f.start({ workflowId: 'session-demo', goal: 'rename the parser', workspacePath: '/w/repo', context: { goal: 'rename', files: ['a.ts', 'b.ts'] } });
    expect(s.status).toBe('started');
    expect(s.continueToken.length).toBeLessThan(40);
    expect(s.checkpointToken.length).toBeLessThan(40);
    expect(s.step.completionId).toBe('plan');
    expect(s.guidance.prompt).toContain('workflow_continue');

    let a = await f.next({ continueToken: s.continueToken, output: { notesMarkdown: 'planned it' } });
    expect(a.status).toBe('advanced');
    expect(a.step.completionId).toBe('per-file[0].edit');
    expect(a.guidance.prompt).toContain('Edit a.ts.');
    a = await f.next({ continueToken: a.continueToken, output: { notesMarkdown: 'edited a' }, context: { extra: 1 } });
    expect(a.step.completionId).toBe('per-file[1].edit');
    expect(a.context).toMatchObject({ goal: 'rename', files: ['a.ts', 'b.ts'], extra: 1 });
    a = await f.next({ continueToken: a.continueToken, output: { notesMarkdown: 'edited b' } });
    expect(a.step.completionId).toBe('report');

    const blocked = await f.next({ continueToken: a.continueToken, output: { notesMarkdown: 'not finished' } });
    expect(blocked.status).toBe('blocked');
    expect(blocked.step.completionId).toBe('report');
    expect(blocked.blockers[0]).toMatchObject({ code: 'validation_failed', pointer: '/notesMarkdown' });
    expect(blocked.blockers[0].message).toContain('DONE');
    expect(blocked.retryToken).toBe(blocked.continueToken);

    const done = await f.next({ continueToken: blocked.retryToken, output: { notesMarkdown: 'all DONE' } });
    expect(done.status).toBe('complete');
    expect(done.isComplete).toBe(true);
    expect(done.summary).toContain('3 of 3 steps done; 1 blocked attempt(s)');

    const t = await f.timeline(s.sessionId);
    expect(t.status).toBe('complete');
    expect(t.events.map((e: { kind: string }) => e.kind)).toEqual([
      'session_started', 'step_completed', 'step_completed', 'step_completed', 'output_blocked', 'step_completed', 'session_completed',
    ]);
    expect(t.events[1].notesMarkdown).toBe('planned it');
  });

  it('answers the same call twice the same, and refuses a stale token with other output as a conflict naming the head token', async () => {
    const s = await f.start({ workflowId: 'session-demo', context: { files: ['a'] } });
    const first = await f.next({ continueToken: s.continueToken, output: { notesMarkdown: 'p' } });
    const again = await f.next({ continueToken: s.continueToken, output: { notesMarkdown: 'p' } });
    expect(again.replayed).toBe(true);
    expect(again.continueToken).toBe(first.continueToken);
    expect(again.step).toEqual(first.step);
    await expect(f.next({ continueToken: s.continueToken, output: { notesMarkdown: 'other' } })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining(first.continueToken),
    });
    const t = await f.timeline(s.sessionId);
    expect(t.events).toHaveLength(2);
  });

  it('forks from a stale token with fork: true and from a checkpoint token, keeping the other branch', async () => {
    const s = await f.start({ workflowId: 'session-demo', context: { files: ['a', 'b'] } });
    const a1 = await f.next({ continueToken: s.continueToken, output: { notesMarkdown: 'plan v1' } });
    const cp = await f.checkpoint({ continueToken: a1.continueToken, note: 'before edits' });
    expect(cp.step.completionId).toBe('per-file[0].edit');
    const a2 = await f.next({ continueToken: a1.continueToken, output: { notesMarkdown: 'edit a v1' } });
    expect(a2.step.completionId).toBe('per-file[1].edit');

    const fromCheckpoint = await f.next({ continueToken: cp.checkpointToken, output: { notesMarkdown: 'edit a v2' }, context: { files: ['a'] } });
    expect(fromCheckpoint.forked).toBeDefined();
    expect(fromCheckpoint.step.completionId).toBe('report');

    const restart = await f.next({ continueToken: s.continueToken, output: { notesMarkdown: 'plan v2' }, fork: true });
    expect(restart.forked).toMatchObject({ from: 0 });
    expect(restart.step.completionId).toBe('per-file[0].edit');

    const t = await f.timeline(s.sessionId);
    const kinds = t.events.map((e: { kind: string }) => e.kind);
    expect(kinds.filter((k: string) => k === 'forked')).toHaveLength(2);
    const notes = t.events.filter((e: { kind: string }) => e.kind === 'step_completed').map((e: { notesMarkdown: string }) => e.notesMarkdown);
    expect(notes).toEqual(['plan v1', 'edit a v1', 'edit a v2', 'plan v2']);
    expect(t.forks).toBe(2);
  });

  it('marks the session needs_attention after the limit of blocked attempts, and a correct output still advances it', async () => {
    const s = await f.start({ workflowId: 'session-demo', context: { files: [] } });
    let a = await f.next({ continueToken: s.continueToken });
    expect(a.step.completionId).toBe('report');
    for (let i = 1; i <= 3; i++) {
      a = await f.next({ continueToken: a.continueToken, output: { notesMarkdown: `try ${i}` } });
      expect(a.status).toBe('blocked');
      expect(a.attempt).toBe(i);
    }
    expect(a.attemptsExhausted).toBe(true);
    expect(a.guidance.prompt).toContain('ask the person');
    expect((await f.list({ status: 'needs_attention' })).sessions.map((x: { sessionId: string }) => x.sessionId)).toEqual([s.sessionId]);
    const done = await f.next({ continueToken: a.retryToken, output: { notesMarkdown: 'DONE' } });
    expect(done.status).toBe('complete');
    expect((await f.list({ status: 'complete' })).sessions).toHaveLength(1);
  });

  it('keeps running the pinned workflow after its file is edited or deleted, and says a newer version exists', async () => {
    const s = await f.start({ workflowId: 'session-demo', context: { files: ['a'] } });
    const file = path.join(f.workflows, 'session-demo.json');
    const wf = JSON.parse(fs.readFileSync(file, 'utf8'));
    wf.version = '2.0.0';
    wf.steps[0].prompt = 'CHANGED';
    wf.steps.splice(1, 1);
    fs.writeFileSync(file, JSON.stringify(wf));
    const a = await f.next({ continueToken: s.continueToken, output: { notesMarkdown: 'p' } });
    expect(a.step.completionId).toBe('per-file[0].edit');
    expect(a.workflow).toMatchObject({ version: '1.0.0', newerVersionAvailable: true });
    expect(a.guidance.prompt).toContain('version 2.0.0');
    fs.rmSync(file);
    const b = await f.next({ continueToken: a.continueToken, output: { notesMarkdown: 'e' } });
    expect(b.step.completionId).toBe('report');
    expect(b.workflow.note).toContain('can no longer be loaded');
  });

  it('refuses forged, truncated and foreign tokens with invalid_token', async () => {
    const s = await f.start({ workflowId: 'session-demo', context: { files: [] } });
    const flip = s.continueToken.slice(0, -2) + (s.continueToken.endsWith('AA') ? 'BB' : 'AA');
    for (const bad of [flip, s.continueToken.slice(0, 20), 'hello', `${s.continueToken}x`]) {
      await expect(f.next({ continueToken: bad })).rejects.toMatchObject({ code: 'invalid_token' });
    }
    const other = sessionFixture();
    try {
      await expect(other.next({ continueToken: s.continueToken })).rejects.toMatchObject({ code: 'invalid_token' });
    } finally {
      other.cleanup();
    }
    const key = fs.statSync(path.join(f.dataDir, 'sessions', 'token.key'));
    expect(key.mode & 0o777).toBe(0o600);
  });

  it('resumes by workspace (the first client root by default), by query and by id', async () => {
    const mine = await f.start({ workflowId: 'session-demo', goal: 'fix the login bug', context: { files: [] } }, { signal: new AbortController().signal, progress: () => undefined, identity: LOCAL_IDENTITY, clientRoots: async () => ['/home/me/proj'] });
    await f.next({ continueToken: mine.continueToken, output: { notesMarkdown: 'found the token refresh race' } });
    const other = await f.start({ workflowId: 'session-demo', goal: 'write docs', workspacePath: '/elsewhere', context: { files: [] } });
    const r = await f.resume({}, { signal: new AbortController().signal, progress: () => undefined, identity: LOCAL_IDENTITY, clientRoots: async () => ['/home/me/proj/'] });
    expect(r.candidates.map((c: { sessionId: string }) => c.sessionId)).toEqual([mine.sessionId, other.sessionId]);
    expect(r.candidates[0].reasons).toContain('same workspace');
    expect(r.candidates[0].recap[0].notes).toContain('token refresh race');
    const q = await f.resume({ query: 'docs' });
    expect(q.candidates[0].sessionId).toBe(other.sessionId);
    const resumed = await f.next({ continueToken: r.candidates[0].continueToken, output: { notesMarkdown: 'DONE' } });
    expect(resumed.status).toBe('complete');
    const t = await f.timeline(mine.sessionId);
    expect(t.events.map((e: { kind: string }) => e.kind)).toContain('session_resumed');
    expect((await f.resume({ sessionId: other.sessionId })).candidates[0].workspacePath).toBe('/elsewhere');
    expect((await f.resume({ query: 'login' })).candidates).toHaveLength(0);
    expect((await f.resume({ query: 'login', status: 'complete' })).candidates).toHaveLength(1);
  });
});

describe('session retention', () => {
  it('prunes completed sessions past the retention, keeps unfinished ones unless asked, and starting a session runs it', async () => {
    const { WorkflowTokens } = await import('../../../src/modules/workflow');
    const { Tokens } = await import('../../../src/kernel/tokens');
    const f = sessionFixture();
    try {
      let now = Date.UTC(2026, 0, 1);
      f.container.register(Tokens.Clock, { useValue: { now: () => now } });
      const done = await f.start({ workflowId: 'session-demo', context: { files: [] } });
      const r = await f.next({ continueToken: done.continueToken });
      await f.next({ continueToken: r.continueToken, output: { notesMarkdown: 'DONE' } });
      const open = await f.start({ workflowId: 'session-demo', context: { files: [] } });
      const prune = (input: Record<string, unknown>) => f.container.resolve<{ execute(i: unknown): Promise<any> }>(WorkflowTokens.PruneSessions).execute(input);

      now += 29 * 86_400_000;
      expect((await prune({})).removed).toEqual([]);
      now += 2 * 86_400_000;
      expect((await prune({ dryRun: true })).removed.map((x: { sessionId: string }) => x.sessionId)).toEqual([done.sessionId]);
      expect((await f.list()).total).toBe(2);
      // A new session (after the retention) prunes the completed one in the background.
      await f.start({ workflowId: 'session-demo', context: { files: [] } });
      for (let i = 0; i < 100 && (await f.list()).total !== 2; i++) await new Promise((res) => setTimeout(res, 50));
      const ids = (await f.list()).sessions.map((x: { sessionId: string }) => x.sessionId);
      expect(ids).not.toContain(done.sessionId);
      expect(ids).toContain(open.sessionId);
      expect((await prune({ includeUnfinished: true, olderThanDays: 30 })).removed.map((x: { sessionId: string }) => x.sessionId)).toEqual([open.sessionId]);
      await expect(f.timeline(open.sessionId)).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      f.cleanup();
    }
  });
});

describe('sessions over the current workflow format', () => {
  it("checks a step's output contract through the engine: blocked with the blockers, then advanced with a valid artifact", async () => {
    const f = sessionFixture();
    try {
      const s = await f.start({ workflowId: 'wr.session-gate', goal: 'ship' });
      expect(s.step.completionId).toBe('work');
      const gate = await f.next({ continueToken: s.continueToken, output: { notesMarkdown: 'changed it' } });
      expect(gate.status).toBe('advanced');
      expect(gate.step.completionId).toBe('gate');
      expect(gate.step.outputContract).toBeDefined();
      const blocked = await f.next({ continueToken: gate.continueToken, output: { notesMarkdown: 'looks fine' } });
      expect(blocked.status).toBe('blocked');
      expect(blocked.blockers[0].code).toBe('contract_artifact_missing');
      const bad = await f.next({ continueToken: blocked.retryToken, output: { artifacts: [{ kind: 'wr.gate_verdict', version: 1, verdict: 'maybe' }] } });
      expect(bad.status).toBe('blocked');
      expect(bad.attempt).toBe(2);
      expect(bad.blockers.map((b: { code: string }) => b.code)).toContain('contract_artifact_invalid');
      const done = await f.next({
        continueToken: bad.retryToken,
        output: { notesMarkdown: 'approved', artifacts: [{ kind: 'wr.gate_verdict', version: 1, verdict: 'approved', confidence: 'high', rationale: 'tests pass and the change is small' }] },
      });
      expect(done.status).toBe('complete');
      const t = await f.timeline(s.sessionId);
      expect(t.events.map((e: { kind: string }) => e.kind)).toEqual(['session_started', 'step_completed', 'output_blocked', 'output_blocked', 'step_completed', 'session_completed']);
    } finally {
      f.cleanup();
    }
  });
});
