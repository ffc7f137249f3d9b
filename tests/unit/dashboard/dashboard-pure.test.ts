import { classifyDataDirPath } from '../../../src/dashboard/data-dir-watcher';
import { sessionDetail } from '../../../src/dashboard/session-view';
import { contextBefore, drawGraphTool } from '../../../src/modules/graph/domain/graph-run-record';

describe('classifyDataDirPath', () => {
  it.each([
    ['projects/my-app/task_graph.json', { kind: 'tasks', project: 'my-app', id: 'my-app' }],
    ['projects/my-app/task_graph.json.tmp-123', { kind: 'tasks', project: 'my-app', id: 'my-app' }],
    ['projects/my-app/transitions.ndjson', { kind: 'tasks', project: 'my-app', id: 'my-app' }],
    ['projects/notes/knowledge_graph.ndjson', { kind: 'knowledge', project: 'notes', id: 'notes' }],
    ['projects/notes/backup', { kind: 'knowledge', project: 'notes', id: 'notes' }],
    ['graph-runs/sum_to_n/1700000000000-abc.json', { kind: 'graph-run', project: 'sum_to_n', id: 'abc' }],
    ['graph-runs/sum_to_n/1700000000000-abc.summary.json', { kind: 'graph-run', project: 'sum_to_n', id: 'abc' }],
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
      { source: 's', target: 'x', label: '{">":[{"var":"n"},1]}' },
      { source: 's', target: 'e', label: 'default' },
    ]);
    expect(d.nodes.find((n) => n.id === 's')?.detail).toBe('2 conditions');
  });
});

describe('sessionDetail', () => {
  it('folds a session timeline into steps with notes, blocked attempts and a timeline with checkpoints and forks', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const view = sessionDetail(
      {
        sessionId: 's1', workflow: { id: 'wf', version: '1.0.0' }, goal: 'ship it', status: 'active',
        step: { completionId: 'review', stepId: 'review', title: 'Review' }, completedSteps: ['plan'], context: {}, createdAt: at, updatedAt: at,
        events: [
          { seq: 1, kind: 'session_started', at, goal: 'ship it' },
          { seq: 2, kind: 'output_blocked', at, completionId: 'plan', title: 'Plan', attempt: 1, blockers: [{ pointer: '/notesMarkdown', message: 'notes are required' }] },
          { seq: 3, kind: 'step_completed', at, completionId: 'plan', title: 'Plan', notesMarkdown: 'planned', artifacts: [{ kind: 'file' }] },
          { seq: 4, kind: 'checkpoint_created', at, node: 2, note: 'before review' },
          { seq: 5, kind: 'forked', at, from: 1, previousHead: 2, via: 'checkpoint' },
        ],
      },
      [{ id: 'plan', title: 'Plan' }, { id: 'review', title: 'Review', prompt: 'Review the plan.' }, { id: 'ship', title: 'Ship' }],
    );
    expect(view.steps.map((s) => [s.id, s.state])).toEqual([['plan', 'done'], ['review', 'current'], ['ship', 'pending']]);
    expect(view.steps[0]).toMatchObject({ notes: ['planned'], artifacts: [{ kind: 'file' }] });
    expect(view.progress).toEqual({ done: 1, total: 3 });
    expect(view.currentPrompt).toBe('Review the plan.');
    expect(view.blocked).toEqual([{ at, stepId: 'plan', issues: ['/notesMarkdown: notes are required'] }]);
    expect(view.timeline.map((t) => t.kind)).toEqual(['created', 'blocked', 'step', 'checkpoint', 'fork']);
  });
});
