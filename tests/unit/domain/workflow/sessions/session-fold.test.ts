import {
  SESSION_EVENT_KINDS,
  SessionTree,
  foldSessionEvent,
  foldSessionEvents,
  isSessionEvent,
  RECAP_NOTES,
  type SessionEvent,
  type SessionState,
} from '../../../../../src/modules/workflow/domain/sessions';
import { whyCannotFollow } from '../../../../../src/modules/workflow/domain/sessions/session-log-order';

const at = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
const ptr = (completionId: string) => ({ completionId, stepId: completionId.replace(/.*\./, ''), title: completionId });

const started: SessionEvent = {
  kind: 'session_started', at: at(0), sessionId: '0123456789abcdef', workflowId: 'wf', workflowVersion: '1', workflowHash: 'h',
  goal: 'g', workspacePath: '/w', gitBranch: 'main', context: { a: 1 }, next: ptr('plan'),
};
const step = (from: number, node: number, completionId: string, next: string | null, extra: Partial<SessionEvent> = {}): SessionEvent =>
  ({ kind: 'step_completed', at: at(node), from, node, completionId, title: completionId, outputHash: `h${node}`, notesMarkdown: `notes ${completionId}`, next: next ? ptr(next) : null, ...extra }) as SessionEvent;

describe('session event fold', () => {
  it('session_started makes node 0 with the context and the first step', () => {
    const s = foldSessionEvent(undefined, started);
    expect(s).toMatchObject({ sessionId: '0123456789abcdef', status: 'active', nodeCount: 1, eventCount: 1, goal: 'g', workspacePath: '/w', gitBranch: 'main' });
    expect(s.head).toEqual({ node: 0, completedSteps: [], context: { a: 1 }, current: ptr('plan'), blockedAttempts: 0, recentNotes: [] });
  });

  it('a log must begin with session_started', () => {
    expect(() => foldSessionEvent(undefined, step(0, 1, 'plan', null))).toThrow(/session_started/);
  });

  it('step_completed appends the completion id, merges the context patch, records the note and clears blocked attempts', () => {
    const blocked: SessionEvent = { kind: 'output_blocked', at: at(1), node: 0, completionId: 'plan', title: 'plan', outputHash: 'x', blockers: [{ code: 'c', pointer: '/notesMarkdown', message: 'm' }], attempt: 1, exhausted: false, contextPatch: { b: 2 } };
    const s = foldSessionEvents(undefined, [started, blocked, step(0, 1, 'plan', 'edit', { contextPatch: { c: 3 } } as Partial<SessionEvent>)]) as SessionState;
    expect(s.head.node).toBe(1);
    expect(s.head.completedSteps).toEqual(['plan']);
    expect(s.head.context).toEqual({ a: 1, b: 2, c: 3 });
    expect(s.head.blockedAttempts).toBe(0);
    expect(s.head.current).toEqual(ptr('edit'));
    expect(s.head.recentNotes).toEqual([{ completionId: 'plan', title: 'plan', notes: 'notes plan' }]);
    expect(s.lastOutcome).toEqual({ kind: 'advanced', from: 0, node: 1, outputHash: 'h1' });
    expect(s.nodeCount).toBe(2);
  });

  it('output_blocked counts attempts, keeps the step, and needs_attention once exhausted; an advance makes it active again', () => {
    const b = (attempt: number, exhausted: boolean): SessionEvent => ({ kind: 'output_blocked', at: at(attempt), node: 0, completionId: 'plan', title: 'plan', outputHash: `b${attempt}`, blockers: [], attempt, exhausted });
    let s = foldSessionEvents(undefined, [started, b(1, false), b(2, false)]) as SessionState;
    expect(s.status).toBe('active');
    expect(s.head.blockedAttempts).toBe(2);
    s = foldSessionEvent(s, b(3, true));
    expect(s.status).toBe('needs_attention');
    expect(s.lastOutcome).toMatchObject({ kind: 'blocked', from: 0, node: 0, outputHash: 'b3', attempt: 3, exhausted: true });
    s = foldSessionEvent(s, step(0, 1, 'plan', 'edit'));
    expect(s.status).toBe('active');
  });

  it('checkpoint_created records the mark', () => {
    const s = foldSessionEvents(undefined, [started, { kind: 'checkpoint_created', at: at(1), node: 0, note: 'here' }]) as SessionState;
    expect(s.checkpoints).toEqual([{ node: 0, note: 'here', at: at(1) }]);
  });

  it('forked moves the head to the copied state of an earlier node and counts the fork', () => {
    const s1 = foldSessionEvents(undefined, [started, step(0, 1, 'plan', 'edit'), step(1, 2, 'edit', null), { kind: 'session_completed', at: at(3), node: 2, summary: 'done' }]) as SessionState;
    expect(s1.status).toBe('complete');
    const base = { node: 0, completedSteps: [], context: { a: 1 }, current: ptr('plan'), blockedAttempts: 0, recentNotes: [] };
    const s2 = foldSessionEvent(s1, { kind: 'forked', at: at(4), from: 0, previousHead: 2, via: 'fork', state: base });
    expect(s2.head).toEqual(base);
    expect(s2.forks).toBe(1);
    expect(s2.status).toBe('active');
    expect(s2.completedAt).toBeUndefined();
    expect(s2.nodeCount).toBe(3);
    const s3 = foldSessionEvent(s2, step(0, 3, 'plan', 'edit'));
    expect(s3.head).toMatchObject({ node: 3, completedSteps: ['plan'] });
  });

  it('session_resumed changes only the time and count; session_completed marks complete with the summary', () => {
    const s = foldSessionEvents(undefined, [started, { kind: 'session_resumed', at: at(5), node: 0 }]) as SessionState;
    expect(s.updatedAt).toBe(at(5));
    expect(s.eventCount).toBe(2);
    expect(s.head.node).toBe(0);
    const c = foldSessionEvent(s, { kind: 'session_completed', at: at(6), node: 0, summary: 'sum' });
    expect(c).toMatchObject({ status: 'complete', completedAt: at(6), summary: 'sum' });
  });

  it('covers every event kind', () => {
    expect([...SESSION_EVENT_KINDS].sort()).toEqual(['checkpoint_created', 'forked', 'output_blocked', 'session_completed', 'session_resumed', 'session_started', 'step_completed', 'verification_run']);
    expect(isSessionEvent({ kind: 'nope', at: 'x' })).toBe(false);
    expect(isSessionEvent({ kind: 'forked' })).toBe(false);
    expect(isSessionEvent(started)).toBe(true);
  });

  it('verification_run is an event of the timeline that changes no state by itself, at the head only', () => {
    const run: SessionEvent = {
      kind: 'verification_run', at: at(1), node: 0, completionId: 'plan__verification', stepId: 'plan__verification', parentStepId: 'plan',
      command: 'npm test', ranBy: 'server', cwd: '/w', exitCode: 1, signal: null, timedOut: false, cancelled: false, durationMs: 12,
      stdoutTail: '', stderrTail: 'fail', truncated: false, verified: false, attempt: 1, timeoutMs: 600000,
    };
    const before = foldSessionEvent(undefined, started);
    const after = foldSessionEvent(before, run);
    expect(after.head).toEqual(before.head);
    expect(after.status).toBe('active');
    expect(after.eventCount).toBe(2);
    expect(isSessionEvent(run)).toBe(true);
    expect(whyCannotFollow(before, run)).toBeUndefined();
    expect(whyCannotFollow(before, { ...run, node: 3 } as SessionEvent)).toMatch(/verification_run at point 3, but the head is point 0/);
  });

  it('keeps a bounded recap of notes', () => {
    const events: SessionEvent[] = [started];
    for (let i = 1; i <= RECAP_NOTES + 5; i++) events.push(step(i - 1, i, `s${i}`, `s${i + 1}`, { notesMarkdown: 'x'.repeat(5_000) } as Partial<SessionEvent>));
    const s = foldSessionEvents(undefined, events) as SessionState;
    expect(s.head.recentNotes).toHaveLength(RECAP_NOTES);
    expect(s.head.recentNotes[0].completionId).toBe('s6');
    expect(s.head.recentNotes.every((n) => n.notes.length <= 600)).toBe(true);
  });
});

describe('session tree (the whole log)', () => {
  const events: SessionEvent[] = [
    started,
    step(0, 1, 'plan', 'edit', { contextPatch: { p: 1 } } as Partial<SessionEvent>),
    { kind: 'output_blocked', at: at(2), node: 1, completionId: 'edit', title: 'edit', outputHash: 'bad', blockers: [{ code: 'c', pointer: '/', message: 'no' }], attempt: 1, exhausted: false, contextPatch: { q: 2 } },
    step(1, 2, 'edit', null),
    { kind: 'forked', at: at(4), from: 1, previousHead: 2, via: 'checkpoint', state: { node: 1, completedSteps: ['plan'], context: { a: 1, p: 1, q: 2 }, current: ptr('edit'), blockedAttempts: 1, recentNotes: [] } },
    step(1, 3, 'edit', null, { outputHash: 'other' } as Partial<SessionEvent>),
  ];
  const tree = new SessionTree(events);

  it('rebuilds any node by walking its ancestors', () => {
    expect(tree.stateAt(1)).toMatchObject({ node: 1, completedSteps: ['plan'], context: { a: 1, p: 1, q: 2 }, current: ptr('edit'), blockedAttempts: 1 });
    expect(tree.stateAt(2)).toMatchObject({ completedSteps: ['plan', 'edit'], current: null });
    expect(tree.stateAt(3)?.completedSteps).toEqual(['plan', 'edit']);
    expect(tree.stateAt(9)).toBeUndefined();
    expect(tree.has(0)).toBe(true);
  });

  it('finds what a call from a node with an output hash produced before', () => {
    expect(tree.priorOutcome(1, 'h2')).toEqual({ kind: 'advanced', from: 1, node: 2 });
    expect(tree.priorOutcome(1, 'other')).toEqual({ kind: 'advanced', from: 1, node: 3 });
    expect(tree.priorOutcome(1, 'bad')).toMatchObject({ kind: 'blocked', attempt: 1 });
    expect(tree.priorOutcome(0, 'nothing')).toBeUndefined();
  });
});
