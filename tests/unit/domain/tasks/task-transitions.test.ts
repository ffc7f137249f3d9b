import { ConflictError, HasDependentsError, InvalidTransitionError, NotFoundError } from '../../../../src/kernel/errors';
import {
  ALL_TASK_STATUSES,
  applyTaskEvent,
  createTaskGraph,
  isStaleValidation,
  STALE_VALIDATION_MARGIN_MS,
  TaskStatus,
  type TaskEvent,
  type TaskGraph,
  type TaskStatus as Status,
} from '../../../../src/modules/tasks/domain';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const at = (ms = T0) => ({ iso: new Date(ms).toISOString(), ms });

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
  { event: { type: 'begin_validation', runId: 'r2' }, call: 'validate_task_loop', allowedFrom: ['IN_PROGRESS'] },
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
        } else if (status === TaskStatus.Validating && event.type === 'reset') {
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
    g = applyTaskEvent(g, 'a', { type: 'begin_validation', runId: 'r1' }, at()).graph;
    expect(g.nodes[0]).toMatchObject({ status: 'VALIDATING', validation_run_id: 'r1', validating_since: at().iso });
    const r = applyTaskEvent(g, 'a', { type: 'pass', runId: 'r1' }, at());
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
    g = applyTaskEvent(g, 'a', { type: 'begin_validation', runId: 'r' }, at()).graph;
    const r = applyTaskEvent(g, 'a', { type: 'pass', runId: 'r' }, at());
    expect(r.unlocked).toEqual([]);
    expect(r.graph.nodes[2].status).toBe('PENDING');
  });

  it('fail → RETRYING with the attempt logged, then FAILED at max_attempts; RETRYING → IN_PROGRESS by start', () => {
    const log = { time: at().iso, exit_code: 1, signal: null, duration_ms: 5, timed_out: false, stdout_tail: '', stderr_tail: 'boom' };
    let g = applyTaskEvent(graph(), 'a', { type: 'start' }, at()).graph;
    g = applyTaskEvent(g, 'a', { type: 'begin_validation', runId: 'r1' }, at()).graph;
    let r = applyTaskEvent(g, 'a', { type: 'fail', runId: 'r1', log }, at());
    expect(r.node).toMatchObject({ status: 'RETRYING', current_attempt: 1 });
    expect(r.node.error_logs).toEqual([{ attempt: 1, ...log }]);
    g = applyTaskEvent(r.graph, 'a', { type: 'start' }, at()).graph;
    g = applyTaskEvent(g, 'a', { type: 'begin_validation', runId: 'r2' }, at()).graph;
    r = applyTaskEvent(g, 'a', { type: 'fail', runId: 'r2', log }, at());
    expect(r.node).toMatchObject({ status: 'FAILED', current_attempt: 2 });
    expect(r.node.error_logs.map((e) => e.attempt)).toEqual([1, 2]);
    expect(() => applyTaskEvent(r.graph, 'a', { type: 'start' }, at())).toThrow(/allowed: reset_task_node/);
  });

  it('cancel returns to IN_PROGRESS without using an attempt', () => {
    let g = applyTaskEvent(graph(), 'a', { type: 'start' }, at()).graph;
    g = applyTaskEvent(g, 'a', { type: 'begin_validation', runId: 'r1' }, at()).graph;
    const r = applyTaskEvent(g, 'a', { type: 'cancel', runId: 'r1' }, at());
    expect(r.node).toMatchObject({ status: 'IN_PROGRESS', current_attempt: 0, error_logs: [] });
  });

  it('a result for another run, or a node no longer VALIDATING, is a conflict', () => {
    const g = withStatus(graph(), 'a', TaskStatus.Validating);
    expect(() => applyTaskEvent(g, 'a', { type: 'pass', runId: 'other' }, at())).toThrow(ConflictError);
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

describe('stale VALIDATING', () => {
  const timeout = 600_000;
  it('is stale only after timeout_ms plus the margin', () => {
    const g = withStatus(graph(), 'a', TaskStatus.Validating, at(T0).iso);
    const node = g.nodes[0];
    expect(isStaleValidation(node, T0 + timeout)).toBe(false);
    expect(isStaleValidation(node, T0 + timeout + STALE_VALIDATION_MARGIN_MS + 1)).toBe(true);
  });

  it('a stale node recovers to IN_PROGRESS without using an attempt, and can be reset; a live one cannot', () => {
    const g = withStatus(graph(), 'a', TaskStatus.Validating, at(T0).iso);
    const late = at(T0 + timeout + STALE_VALIDATION_MARGIN_MS + 1);
    expect(() => applyTaskEvent(g, 'a', { type: 'recover_interrupted' }, at(T0 + 1000))).toThrow(ConflictError);
    expect(() => applyTaskEvent(g, 'a', { type: 'reset' }, at(T0 + 1000))).toThrow(/command is running/);
    const r = applyTaskEvent(g, 'a', { type: 'recover_interrupted' }, late);
    expect(r.node).toMatchObject({ status: 'IN_PROGRESS', current_attempt: 0 });
    expect(applyTaskEvent(g, 'a', { type: 'reset' }, late).node.status).toBe('READY');
  });
});
