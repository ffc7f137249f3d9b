import { classifyDataDirPath } from '../../../src/dashboard/data-dir-watcher';
import { sessionDetail } from '../../../src/dashboard/session-view';
import { verificationBadge } from '../../../src/dashboard/session-timeline';
import { contextBefore, drawGraphTool } from '../../../src/modules/graph/domain/graph-run-record';

describe('classifyDataDirPath', () => {
  it.each([
    ['projects/my-app/task_graph.json', { kind: 'tasks', project: 'my-app', id: 'my-app' }],
    ['projects/my-app/task_graph.json.tmp-123', { kind: 'tasks', project: 'my-app', id: 'my-app' }],
    ['projects/my-app/.task_graph.json.tmp-123-ab12cd34', { kind: 'tasks', project: 'my-app', id: 'my-app' }],
    ['projects/my-app/transitions.ndjson', { kind: 'tasks', project: 'my-app', id: 'my-app' }],
    ['projects/my-app/history.ndjson', { kind: 'tasks', project: 'my-app', id: 'my-app' }],
    ['projects/notes/knowledge_graph.ndjson', { kind: 'knowledge', project: 'notes', id: 'notes' }],
    ['projects/notes/backup', { kind: 'knowledge', project: 'notes', id: 'notes' }],
    ['graph-runs/sum_to_n/1700000000000-abc.json', { kind: 'graph-run', project: 'sum_to_n', id: 'abc' }],
    ['graph-runs/sum_to_n/1700000000000-abc.summary.json', { kind: 'graph-run', project: 'sum_to_n', id: 'abc' }],
    // The checked write path's temp files (the only event the OS may give for a record rewritten by rename).
    ['graph-runs/sum_to_n/.1700000000000-ab-1-xyz.json.tmp-13627-ecf039a9', { kind: 'graph-run', project: 'sum_to_n', id: 'ab-1-xyz' }],
    ['graph-runs/sum_to_n/.1700000000000-ab-1-xyz.summary.json.tmp-13627-30eb7e6e', { kind: 'graph-run', project: 'sum_to_n', id: 'ab-1-xyz' }],
    ['graph-runs/sum_to_n', { kind: 'graph-run', project: 'sum_to_n', id: 'sum_to_n' }],
    ['sessions/s-1/events.ndjson', { kind: 'session', id: 's-1' }],
  ])('%s', (p, expected) => expect(classifyDataDirPath(p)).toEqual(expected));

  it.each(['projects/my-app.lock/x', 'projects/my-app', 'other/file', 'projects/x/notes.txt', 'sessions', 'graph-runs/t/README'])('ignores %s', (p) => expect(classifyDataDirPath(p)).toBeUndefined());
});

describe('run records', () => {
  it('the context node execution i saw is the latest output of each node before it, failed ones left out', () => {
    const ex = (i: number, nodeId: string, output: unknown, error?: { code: string; message: string }) => ({ executionIndex: i, nodeId, nodeType: 'transform' as const, startTime: i, endTime: i, duration: 0, output, ...(error ? { error } : {}) });
    const executions = [ex(0, 'a', 1), ex(1, 'b', 2), ex(2, 'a', 3), ex(3, 'c', undefined, { code: 'x', message: 'boom' })];
    expect(contextBefore(executions, 0)).toEqual({});
    expect(contextBefore(executions, 2)).toEqual({ a: 1, b: 2 });
    expect(contextBefore(executions, 4)).toEqual({ a: 3, b: 2 });
  });

  it('a graph is drawn with switch conditions on its edges and a default', () => {
    const d = drawGraphTool({
      name: 't', description: '', inputSchema: {}, outputSchema: {}, wrapOutput: false, entryId: 'e', exitId: 'x',
      nodes: [
        { id: 'e', type: 'entry', next: 's' },
        { id: 's', type: 'switch', conditions: [{ rule: { '>': [{ var: 'n' }, 1] }, target: 'x' }, { target: 'e' }] },
        { id: 'x', type: 'exit' },
      ],
    });
    expect(d.edges).toEqual([
      { source: 'e', target: 's' },
      { source: 's', target: 'x', label: '{">":[{"var":"n"},1]}', rule: { '>': [{ var: 'n' }, 1] } },
      { source: 's', target: 'e', label: 'default' },
    ]);
    expect(d.nodes.find((n) => n.id === 's')?.detail).toBe('2 conditions');
  });
});

describe('sessionDetail', () => {
  const at = '2026-01-01T00:00:00.000Z';
  const progressSteps = (states: string[]) => [{ stepId: 'plan', title: 'Plan' }, { stepId: 'review', title: 'Review' }, { stepId: 'ship', title: 'Ship' }].map((s, i) => ({ ...s, state: states[i] as 'done' }));
  const forkedSession = {
    sessionId: 's1', workflow: { id: 'wf', version: '1.0.0' }, goal: 'ship it', status: 'active',
    step: { completionId: 'ship', stepId: 'ship', title: 'Ship' }, completedSteps: ['plan', 'review'], context: {}, createdAt: at, updatedAt: at,
    progress: { done: 2, total: 3, skipped: 0, steps: progressSteps(['done', 'done', 'current']) },
    events: [
      { seq: 1, kind: 'session_started', at, goal: 'ship it' },
      { seq: 2, kind: 'output_blocked', at, node: 0, completionId: 'plan', title: 'Plan', attempt: 1, blockers: [{ pointer: '/notesMarkdown', message: 'notes are required' }] },
      { seq: 3, kind: 'step_completed', at, from: 0, node: 1, completionId: 'plan', title: 'Plan', notesMarkdown: 'planned', artifacts: [{ kind: 'file' }] },
      { seq: 4, kind: 'step_completed', at, from: 1, node: 2, completionId: 'review', title: 'Review', notesMarkdown: 'the abandoned review' },
      { seq: 5, kind: 'checkpoint_created', at, node: 2, note: 'before review' },
      { seq: 6, kind: 'forked', at, from: 1, previousHead: 2, via: 'checkpoint' },
      { seq: 7, kind: 'step_completed', at, from: 1, node: 3, completionId: 'review', title: 'Review', notesMarkdown: 'the review that stands' },
    ],
  };

  it('shows the head branch: its notes only, states and counts from the workflow module, the other branch reachable', () => {
    const view = sessionDetail(forkedSession, [{ id: 'ship', title: 'Ship', prompt: 'Ship it.' }]);
    expect(view.steps.map((s) => [s.id, s.state])).toEqual([['plan', 'done'], ['review', 'done'], ['ship', 'current']]);
    expect(view.steps[0]).toMatchObject({ notes: [{ markdown: 'planned' }], artifacts: [{ kind: 'file' }] });
    expect(view.steps[1].notes).toEqual([{ markdown: 'the review that stands' }]);
    expect(view.progress).toEqual({ done: 2, total: 3, skipped: 0 });
    expect(view.branches.map((b) => [b.tip, b.head])).toEqual([[3, true], [2, false]]);
    expect(view.branches[1]).toMatchObject({ forkedAfter: 'Plan', completed: 2 });
    expect(view.branches[1].steps[1].notes).toEqual([{ markdown: 'the abandoned review' }]);
    expect(view.branches[1].steps.map((s) => s.state)).toEqual(['done', 'done', 'pending']);
    expect(view.currentPrompt).toBe('Ship it.');
    expect(view.blocked).toEqual([{ at, stepId: 'plan', issues: ['/notesMarkdown: notes are required'] }]);
    expect(view.timeline.map((t) => t.kind)).toEqual(['created', 'blocked', 'step', 'step', 'checkpoint', 'fork', 'step']);
  });

  it('right after a fork the head is the node forked from: the current step shows no notes of the branch left', () => {
    const events = forkedSession.events.slice(0, 6);
    const view = sessionDetail({ ...forkedSession, events, step: { completionId: 'review', stepId: 'review', title: 'Review' }, progress: { done: 1, total: 3, skipped: 0, steps: progressSteps(['done', 'current', 'pending']) } }, []);
    expect(view.steps[1]).toMatchObject({ state: 'current', notes: [] });
    expect(view.branches.map((b) => [b.tip, b.head])).toEqual([[1, true], [2, false]]);
  });

  it("a loop's notes say their iteration; the completion summary is its own field", () => {
    const view = sessionDetail(
      {
        ...forkedSession, status: 'complete', step: null,
        progress: { done: 1, total: 1, skipped: 0, steps: [{ stepId: 'fix', title: 'Fix', state: 'done' }] },
        events: [
          { seq: 1, kind: 'session_started', at },
          { seq: 2, kind: 'step_completed', at, from: 0, node: 1, completionId: 'fix[0].try', title: 'Try', notesMarkdown: '- one' },
          { seq: 3, kind: 'step_completed', at, from: 1, node: 2, completionId: 'fix[1].try', title: 'Try', notesMarkdown: '- two' },
          { seq: 4, kind: 'session_completed', at, node: 2, summary: '2 step(s) done\n- Try: two' },
        ],
      },
      [],
    );
    expect(view.steps[0].notes).toEqual([{ markdown: '- one', label: 'iteration 1 · Try' }, { markdown: '- two', label: 'iteration 2 · Try' }]);
    expect(view.summary).toBe('2 step(s) done\n- Try: two');
    expect(view.branches).toHaveLength(1);
  });
});

describe('verificationBadge', () => {
  const server = { ranBy: 'server', verified: false, cancelled: false };
  it.each([
    ['the server ran it, exit 0', { ...server, verified: true }, 'passed'],
    ['the server ran it, exit 3', server, 'failed'],
    ['the server ran it, timed out', { ...server, timedOut: true }, 'failed'],
    ['handed to the agent', { ranBy: 'agent', verified: false, cancelled: false }, 'unverified'],
    ['cancelled mid-run', { ...server, cancelled: true }, 'cancelled'],
    ['its server died mid-run', { ...server, interrupted: true }, 'interrupted'],
  ])('%s: %s', (_what, run, badge) => expect(verificationBadge(run)).toBe(badge));
});
