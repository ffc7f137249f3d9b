import { ExecutionHistory } from '../../../../src/modules/graph/domain/execution-history';
import type { NodeExecutionRecord } from '../../../../src/modules/graph/domain/types';

function rec(executionIndex: number, nodeId: string, output: unknown, error?: string): NodeExecutionRecord {
  return {
    executionIndex,
    nodeId,
    nodeType: 'transform',
    startTime: 0,
    endTime: 0,
    duration: 0,
    output,
    ...(error ? { error: { code: 'expression_error', message: error } } : {}),
  };
}

/** entry(0) → inc(1) → check(2) → inc(3) → check(4) → inc(5) */
function loopHistory(): ExecutionHistory {
  const h = new ExecutionHistory();
  h.add(rec(0, 'entry', { n: 3 }));
  h.add(rec(1, 'inc', { i: 1 }));
  h.add(rec(2, 'check', 'inc'));
  h.add(rec(3, 'inc', { i: 2 }));
  h.add(rec(4, 'check', 'inc'));
  h.add(rec(5, 'inc', { i: 3 }));
  return h;
}

describe('ExecutionHistory', () => {
  it('keeps the context as the latest output of each node', () => {
    const h = loopHistory();
    expect(h.context).toEqual({ entry: { n: 3 }, inc: { i: 3 }, check: 'inc' });
    expect(h.length).toBe(6);
  });

  it('answers executionCount, nodeExecution (positive and negative) and nodeExecutions', () => {
    const h = loopHistory();
    expect(h.executionCount('inc')).toBe(3);
    expect(h.executionCount('nope')).toBe(0);
    expect(h.nodeExecution('inc', 0)).toEqual({ i: 1 });
    expect(h.nodeExecution('inc', 2)).toEqual({ i: 3 });
    expect(h.nodeExecution('inc', -1)).toEqual({ i: 3 });
    expect(h.nodeExecution('inc', -3)).toEqual({ i: 1 });
    expect(h.nodeExecution('inc', -4)).toBeNull();
    expect(h.nodeExecution('inc', 3)).toBeNull();
    expect(h.nodeExecution('nope', 0)).toBeNull();
    expect(h.nodeExecutions('inc')).toEqual([{ i: 1 }, { i: 2 }, { i: 3 }]);
    expect(h.nodeExecutions('nope')).toEqual([]);
  });

  it('answers previousNode counting back from the next execution', () => {
    const h = loopHistory();
    expect(h.previousNode()).toEqual({ i: 3 });
    expect(h.previousNode(2)).toBe('inc');
    expect(h.previousNode(6)).toEqual({ n: 3 });
    expect(h.previousNode(7)).toBeNull();
    expect(h.previousNode(0)).toBeNull();
  });

  it('reconstructs the context any execution saw (time travel)', () => {
    const h = loopHistory();
    expect(h.contextAt(0)).toEqual({});
    expect(h.contextAt(1)).toEqual({ entry: { n: 3 } });
    expect(h.contextAt(3)).toEqual({ entry: { n: 3 }, inc: { i: 1 }, check: 'inc' });
    expect(h.contextAt(5)).toEqual({ entry: { n: 3 }, inc: { i: 2 }, check: 'inc' });
    expect(h.contextAt(6)).toEqual(h.context);
    expect(h.contextAt(7)).toBeUndefined();
    expect(h.contextAt(-1)).toBeUndefined();
  });

  it('leaves a failed execution out of the context', () => {
    const h = loopHistory();
    h.add(rec(6, 'inc', null, 'boom'));
    expect(h.context.inc).toEqual({ i: 3 });
    expect(h.contextAt(7)!.inc).toEqual({ i: 3 });
    expect(h.byIndex(6)!.error!.message).toBe('boom');
  });

  it('refuses records out of order', () => {
    const h = new ExecutionHistory();
    expect(() => h.add(rec(1, 'a', 1))).toThrow(/out of order/);
  });
});
