import { ConflictError, HasDependentsError, InvalidTransitionError, NotFoundError } from '../../../../src/kernel/errors';
import {
  ALL_TASK_STATUSES,
  applyTaskEvent,
  createTaskGraph,
  MAX_ATTEMPT_RECORDS,
  newLease,
  runOwnership,
  STALE_VALIDATION_MARGIN_MS,
  TaskStatus,
  type HostFacts,
  type RunOutcome,
  type TaskEvent,
  type TaskGraph,
  type TaskStatus as Status,
} from '../../../../src/modules/tasks/domain';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const at = (ms = T0) => ({ iso: new Date(ms).toISOString(), ms });
const HOST: HostFacts = { host: 'h1', bootId: 'boot-1', pid: 100, isAlive: (pid) => pid === 100 || pid === 200, runsHere: () => false };
const lease = (runId: string, ms = T0, facts: HostFacts = HOST) => newLease(facts, runId, ms);
const begin = (runId: string) => ({ type: 'begin_validation', runId, lease: lease(runId) }) as const;
const outcome = (o: Partial<RunOutcome> = {}): RunOutcome => ({
  finished_at: at().iso, command_ran: true, exit_code: 0, signal: null, duration_ms: 5, timed_out: false, stdout_tail: '', stderr_tail: '', truncated: false, ...o,
});

/** a -> b (b depends on a); c independent. */
function graph(): TaskGraph {
  return createTaskGraph({
    projectId: 'p',
    projectName: 'P',
    projectRoot: '/tmp/p',
    now: at().iso,
    nodes: [
      { id: 'a', title: 'A', validation_command: 'true', max_attempts: 2 },
      { id: 'b', title: 'B', depends_on: ['a'] },
      { id: 'c', title: 'C' },
    ],
  });
}

/** The graph with node `id` forced into `status` (and VALIDATING with run r1 since `since`). */
function withStatus(g: TaskGraph, id: string, status: Status, since = at().iso): TaskGraph {
  return {
    ...g,
    nodes: g.nodes.map((n) =>
      n.id === id
        ? { ...n, status, ...(status === TaskStatus.Validating ? { validating_since: since, validation_run_id: 'r1' } : {}) }
        : n,
    ),
  };
}

const calls: { event: TaskEvent; call: string; allowedFrom: Status[] }[] = [
  { event: { type: 'start' }, call: 'start_task', allowedFrom: ['READY', 'RETRYING'] },
  { event: begin('r2'), call: 'validate_task_loop', allowedFrom: ['IN_PROGRESS', 'RETRYING'] },
  { event: { type: 'reset' }, call: 'reset_task_node', allowedFrom: ['FAILED', 'RETRYING', 'IN_PROGRESS', 'COMPLETED'] },
];

describe('applyTaskEvent: every (status, call) pair', () => {
  for (const { event, call, allowedFrom } of calls) {
    for (const status of ALL_TASK_STATUSES) {
      const allowed = allowedFrom.includes(status);
      it(`${call} from ${status} is ${allowed ? 'allowed' : 'refused'}`, () => {
        const g = withStatus(graph(), 'c', status);
        if (allowed) {
          const r = applyTaskEvent(g, 'c', event, at());
          expect(r.transitions[0]).toMatchObject({ node: 'c', from: status });
          expect(g.nodes.find((n) => n.id === 'c')!.status).toBe(status); // input untouched
        } else if (status === TaskStatus.Validating && (event.type === 'reset' || event.type === 'begin_validation')) {
          expect(() => applyTaskEvent(g, 'c', event, at())).toThrow(ConflictError);
        } else {
          let err: unknown;
          try {
            applyTaskEvent(g, 'c', event, at());
          } catch (e) {
            err = e;
          }
          expect(err).toBeInstanceOf(InvalidTransitionError);
          const e = err as InvalidTransitionError;
          expect(e.from).toBe(status);
          expect(e.attempted).toBe(call);
          expect(e.message).toContain(`is ${status}`);
        }
      });
    }
  }
});

describe('applyTaskEvent: the lifecycle', () => {
  it('starts at READY (no deps) and PENDING (deps), and a PENDING refusal names what it waits for', () => {
    const g = graph();
    expect(g.nodes.map((n) => n.status)).toEqual(['READY', 'PENDING', 'READY']);
    expect(() => applyTaskEvent(g, 'b', { type: 'start' }, at())).toThrow(/waiting for a to be COMPLETED/);
  });

  it('start → begin → pass completes the node and unlocks its dependents', () => {
    let g = applyTaskEvent(graph(), 'a', { type: 'start' }, at()).graph;
    g = applyTaskEvent(g, 'a', begin('r1'), at()).graph;
    expect(g.nodes[0]).toMatchObject({ status: 'VALIDATING', validation_run_id: 'r1', validating_since: at().iso });
    const r = applyTaskEvent(g, 'a', { type: 'pass', runId: 'r1', run: outcome() }, at());
    expect(r.node).toMatchObject({ status: 'COMPLETED', current_attempt: 1 });
    expect(r.node.validating_since).toBeUndefined();
    expect(r.unlocked).toEqual(['b']);
    expect(r.graph.nodes[1].status).toBe('READY');
    expect(r.transitions.map((t) => `${t.node}:${t.from}->${t.to}`)).toEqual(['a:VALIDATING->COMPLETED', 'b:PENDING->READY']);
  });

  it('a dependent with another unfinished dependency stays PENDING', () => {
    const g0 = createTaskGraph({
      projectId: 'p', projectName: 'p', projectRoot: '/', now: at().iso,
      nodes: [{ id: 'a', title: 'A' }, { id: 'x', title: 'X' }, { id: 'b', title: 'B', depends_on: ['a', 'x'] }],
    });
    let g = applyTaskEvent(g0, 'a', { type: 'start' }, at()).graph;
    g = applyTaskEvent(g, 'a', begin('r'), at()).graph;
    const r = applyTaskEvent(g, 'a', { type: 'pass', runId: 'r', run: outcome() }, at());
    expect(r.unlocked).toEqual([]);
    expect(r.graph.nodes[2].status).toBe('PENDING');
  });

  it('fail → RETRYING with the attempt logged, then FAILED at max_attempts; RETRYING → IN_PROGRESS by start', () => {
    const run = outcome({ exit_code: 1, stderr_tail: 'boom' });
    const log = { time: at().iso, exit_code: 1, signal: null, duration_ms: 5, timed_out: false, stdout_tail: '', stderr_tail: 'boom' };
    let g = applyTaskEvent(graph(), 'a', { type: 'start' }, at()).graph;
    g = applyTaskEvent(g, 'a', begin('r1'), at()).graph;
    let r = applyTaskEvent(g, 'a', { type: 'fail', runId: 'r1', run }, at());
    expect(r.node).toMatchObject({ status: 'RETRYING', current_attempt: 1 });
    expect(r.node.error_logs).toEqual([{ attempt: 1, ...log }]);
    expect(r.node.last_run).toMatchObject({ run_id: 'r1', attempt: 1, passed: false, delivered: false });
    expect(r.transitions[0].record).toEqual({ attempt: 1, ...log });
    g = applyTaskEvent(r.graph, 'a', { type: 'start' }, at()).graph;
    g = applyTaskEvent(g, 'a', begin('r2'), at()).graph;
    r = applyTaskEvent(g, 'a', { type: 'fail', runId: 'r2', run }, at());
    expect(r.node).toMatchObject({ status: 'FAILED', current_attempt: 2 });
    expect(r.node.error_logs.map((e) => e.attempt)).toEqual([1, 2]);
    expect(() => applyTaskEvent(r.graph, 'a', { type: 'start' }, at())).toThrow(/allowed: reset_task_node/);
  });

  it('cancel returns to IN_PROGRESS without using an attempt', () => {
    let g = applyTaskEvent(graph(), 'a', { type: 'start' }, at()).graph;
    g = applyTaskEvent(g, 'a', begin('r1'), at()).graph;
    const r = applyTaskEvent(g, 'a', { type: 'cancel', runId: 'r1' }, at());
    expect(r.node).toMatchObject({ status: 'IN_PROGRESS', current_attempt: 0, error_logs: [] });
  });

  it('a result for another run, or a node no longer VALIDATING, is a conflict', () => {
    const g = withStatus(graph(), 'a', TaskStatus.Validating);
    expect(() => applyTaskEvent(g, 'a', { type: 'pass', runId: 'other', run: outcome() }, at())).toThrow(ConflictError);
    expect(() => applyTaskEvent(graph(), 'a', { type: 'cancel', runId: 'r1' }, at())).toThrow(ConflictError);
  });

  it('unknown node → NotFoundError', () => {
    expect(() => applyTaskEvent(graph(), 'zz', { type: 'start' }, at())).toThrow(NotFoundError);
  });
});

describe('reset rules', () => {
  it('resets to READY or PENDING by dependencies, clears attempts, keeps error_logs', () => {
    let g = withStatus(graph(), 'a', TaskStatus.Completed);
    g = { ...g, nodes: g.nodes.map((n) => (n.id === 'b' ? { ...n, status: 'FAILED', current_attempt: 3, error_logs: [{ attempt: 1 } as never] } : n)) };
    const r = applyTaskEvent(g, 'b', { type: 'reset' }, at());
    expect(r.node).toMatchObject({ status: 'READY', current_attempt: 0 });
    expect(r.node.error_logs).toHaveLength(1);
    const pending = applyTaskEvent(withStatus(graph(), 'b', TaskStatus.Failed), 'b', { type: 'reset' }, at());
    expect(pending.node.status).toBe('PENDING');
  });

  it('resetting a COMPLETED node sends READY dependents back to PENDING', () => {
    let g = withStatus(graph(), 'a', TaskStatus.Completed);
    g = withStatus(g, 'b', TaskStatus.Ready);
    const r = applyTaskEvent(g, 'a', { type: 'reset' }, at());
    expect(r.node.status).toBe('READY');
    expect(r.reverted).toEqual(['b']);
    expect(r.graph.nodes[1].status).toBe('PENDING');
  });

  it.each(['IN_PROGRESS', 'VALIDATING', 'RETRYING', 'COMPLETED', 'FAILED'] as Status[])(
    'resetting a COMPLETED node is refused while a dependent is %s, naming it',
    (dependentStatus) => {
      let g = withStatus(graph(), 'a', TaskStatus.Completed);
      g = withStatus(g, 'b', dependentStatus);
      expect(() => applyTaskEvent(g, 'a', { type: 'reset' }, at())).toThrow(HasDependentsError);
      expect(() => applyTaskEvent(g, 'a', { type: 'reset' }, at())).toThrow(`b (${dependentStatus})`);
    },
  );
});

describe('the next attempt and bounded records', () => {
  it('begin_validation on RETRYING starts the next attempt at once (RETRYING → IN_PROGRESS → VALIDATING)', () => {
    let g = applyTaskEvent(graph(), 'a', { type: 'start' }, at()).graph;
    g = applyTaskEvent(g, 'a', begin('r1'), at()).graph;
    g = applyTaskEvent(g, 'a', { type: 'fail', runId: 'r1', run: outcome({ exit_code: 1 }) }, at()).graph;
    const r = applyTaskEvent(g, 'a', begin('r2'), at());
    expect(r.transitions.map((t) => `${t.from}->${t.to}:${t.attempt}`)).toEqual(['RETRYING->IN_PROGRESS:2', 'IN_PROGRESS->VALIDATING:2']);
    expect(r.node).toMatchObject({ status: 'VALIDATING', validation_run_id: 'r2', owner: { pid: 100, run_id: 'r2' } });
  });

  it(`keeps the latest ${MAX_ATTEMPT_RECORDS} attempt records on the node, every one in its transition`, () => {
    let g = createTaskGraph({ projectId: 'p', projectName: 'p', projectRoot: '/', now: at().iso, nodes: [{ id: 'a', title: 'A', max_attempts: 100 }] });
    g = applyTaskEvent(g, 'a', { type: 'start' }, at()).graph;
    const records = [];
    for (let i = 1; i <= 25; i++) {
      g = applyTaskEvent(g, 'a', begin(`r${i}`), at()).graph;
      const r = applyTaskEvent(g, 'a', { type: 'fail', runId: `r${i}`, run: outcome({ exit_code: 1, stdout_tail: 'x'.repeat(10_000) }) }, at());
      records.push(r.transitions[0].record!);
      g = r.graph;
    }
    const node = g.nodes[0];
    expect(node.error_logs.map((e) => e.attempt)).toEqual(Array.from({ length: 20 }, (_, i) => i + 6));
    expect(records.map((r) => r.attempt)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(Buffer.byteLength(node.error_logs[0].stdout_tail)).toBe(4096);
    expect(node.last_run!.stdout_tail).toHaveLength(10_000);
  });

  it('mark_delivered and renew_lease change fields without a transition', () => {
    let g = applyTaskEvent(graph(), 'a', { type: 'start' }, at()).graph;
    g = applyTaskEvent(g, 'a', begin('r1'), at()).graph;
    const renewed = applyTaskEvent(g, 'a', { type: 'renew_lease', runId: 'r1', expiresAt: at(T0 + 99_000).iso }, at());
    expect(renewed.transitions).toEqual([]);
    expect(renewed.node.owner!.expires_at).toBe(at(T0 + 99_000).iso);
    const done = applyTaskEvent(renewed.graph, 'a', { type: 'pass', runId: 'r1', run: outcome() }, at());
    expect(done.node.owner).toBeUndefined();
    const d = applyTaskEvent(done.graph, 'a', { type: 'mark_delivered', runId: 'r1' }, at());
    expect(d.transitions).toEqual([]);
    expect(d.node.last_run!.delivered).toBe(true);
    expect(applyTaskEvent(d.graph, 'a', { type: 'mark_delivered', runId: 'r1' }, at()).graph).toBe(d.graph);
  });
});

describe('run owner lease', () => {
  const validating = (owner = lease('r1')) => ({ ...withStatus(graph(), 'a', TaskStatus.Validating), nodes: withStatus(graph(), 'a', TaskStatus.Validating).nodes.map((n) => (n.id === 'a' ? { ...n, owner } : n)) }).nodes[0];

  it('a live owner elsewhere on this host holds the node until its lease expires', () => {
    const node = validating(lease('r1', T0, { ...HOST, pid: 200 }));
    expect(runOwnership(node, T0 + 1000, HOST)).toMatchObject({ recoverable: false });
    expect(runOwnership(node, T0 + 1000, HOST).reason).toMatch(/pid 200 on host h1/);
    expect(runOwnership(node, T0 + 61_000, HOST)).toMatchObject({ recoverable: true });
  });

  it('an owner pid that is gone, or a changed boot id, makes it recoverable at once', () => {
    expect(runOwnership(validating(lease('r1', T0, { ...HOST, pid: 300 })), T0 + 10, HOST)).toMatchObject({ recoverable: true, reason: expect.stringMatching(/is gone/) });
    expect(runOwnership(validating(lease('r1', T0, { ...HOST, pid: 200, bootId: 'boot-0' })), T0 + 10, HOST)).toMatchObject({ recoverable: true });
  });

  it('this very process: held while its run is in progress here, recoverable once it is not', () => {
    const node = validating(lease('r1'));
    expect(runOwnership(node, T0 + 10, { ...HOST, runsHere: (id) => id === 'r1' })).toMatchObject({ recoverable: false });
    expect(runOwnership(node, T0 + 10, HOST)).toMatchObject({ recoverable: true, reason: expect.stringMatching(/without recording a verdict/) });
  });

  it('another host: only expiry counts (its pids mean nothing here)', () => {
    const node = validating(lease('r1', T0, { ...HOST, host: 'h2', pid: 999 }));
    expect(runOwnership(node, T0 + 59_000, HOST)).toMatchObject({ recoverable: false });
    expect(runOwnership(node, T0 + 60_001, HOST)).toMatchObject({ recoverable: true });
  });

  it('begin_validation recovers an orphaned node (VALIDATING → IN_PROGRESS → VALIDATING) and refuses a held one', () => {
    const g = { ...graph(), nodes: graph().nodes.map((n) => (n.id === 'a' ? validating(lease('r1', T0, { ...HOST, pid: 300 })) : n)) };
    const r = applyTaskEvent(g, 'a', { ...begin('r2'), facts: HOST }, at(T0 + 10));
    expect(r.transitions.map((t) => `${t.from}->${t.to}`)).toEqual(['VALIDATING->IN_PROGRESS', 'IN_PROGRESS->VALIDATING']);
    const held = { ...graph(), nodes: graph().nodes.map((n) => (n.id === 'a' ? validating(lease('r1', T0, { ...HOST, pid: 200 })) : n)) };
    expect(() => applyTaskEvent(held, 'a', { ...begin('r2'), facts: HOST }, at(T0 + 10))).toThrow(/another server process \(pid 200/);
  });
});

describe('VALIDATING without an owner lease (files of format 1)', () => {
  const timeout = 600_000;
  it('is recoverable only after timeout_ms plus the margin', () => {
    const g = withStatus(graph(), 'a', TaskStatus.Validating, at(T0).iso);
    const node = g.nodes[0];
    expect(runOwnership(node, T0 + timeout, HOST).recoverable).toBe(false);
    expect(runOwnership(node, T0 + timeout + STALE_VALIDATION_MARGIN_MS + 1, HOST).recoverable).toBe(true);
  });

  it('a stale node recovers to IN_PROGRESS without using an attempt, and can be reset; a live one cannot', () => {
    const g = withStatus(graph(), 'a', TaskStatus.Validating, at(T0).iso);
    const late = at(T0 + timeout + STALE_VALIDATION_MARGIN_MS + 1);
    expect(() => applyTaskEvent(g, 'a', { type: 'recover_interrupted' }, at(T0 + 1000))).toThrow(ConflictError);
    expect(() => applyTaskEvent(g, 'a', { type: 'reset' }, at(T0 + 1000))).toThrow(/command may still be running/);
    const r = applyTaskEvent(g, 'a', { type: 'recover_interrupted' }, late);
    expect(r.node).toMatchObject({ status: 'IN_PROGRESS', current_attempt: 0 });
    expect(applyTaskEvent(g, 'a', { type: 'reset' }, late).node.status).toBe('READY');
  });
});
