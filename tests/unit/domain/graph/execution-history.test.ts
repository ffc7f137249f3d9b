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

  it('reads outputs back as JSON copies, keeping the latest of each node and of the run as produced', () => {
    const h = new ExecutionHistory();
    const first = { i: 1, nested: { list: [1, 'two', null] } };
    const second = { i: 2, skipped: undefined };
    h.add(rec(0, 'inc', first));
    h.add(rec(1, 'check', 'inc'));
    h.add(rec(2, 'inc', second));
    expect(h.nodeExecution('inc', 0)).toEqual(first);
    expect(h.nodeExecution('inc', 0)).not.toBe(first); // parsed again from its JSON text
    expect(h.nodeExecution('inc', -1)).toBe(second); // the latest: no parse
    expect(h.previousNode()).toBe(second);
    expect(h.nodeExecutions('inc')).toEqual([first, second]);
    expect(h.byIndex(0)!.output).toEqual(first);
    const fn = () => 1;
    h.add(rec(3, 'fn', fn)); // a value JSON cannot hold is kept as it is
    h.add(rec(4, 'undef', undefined));
    expect(h.byIndex(3)!.output).toBe(fn);
    expect(h.byIndex(4)!.output).toBeUndefined();
  });

  it('serves every record through a read-only array view built on demand', () => {
    const h = loopHistory();
    const all = h.all();
    expect(Array.isArray(all)).toBe(true);
    expect(all.length).toBe(6);
    expect(all[1]).toMatchObject({ executionIndex: 1, nodeId: 'inc', output: { i: 1 } });
    expect(all[6]).toBeUndefined();
    expect(all.map((r) => r.nodeId)).toEqual(['entry', 'inc', 'check', 'inc', 'check', 'inc']);
    expect([...all].length).toBe(6);
    expect(all.slice(4).map((r) => r.executionIndex)).toEqual([4, 5]);
    expect(all.find((r) => r.nodeId === 'check')!.output).toBe('inc');
    expect(JSON.parse(JSON.stringify(all))).toHaveLength(6);
    h.add(rec(6, 'check', 'exit'));
    expect(all.length).toBe(7); // live
    expect(() => ((all as unknown as unknown[])[0] = 1)).toThrow(/read-only/);
  });

  it('stores a long loop compactly and reports what it holds', () => {
    const h = new ExecutionHistory();
    const empty = h.byteSize;
    const n = 100_000;
    for (let i = 0; i < n; i++) {
      h.append('inc', 'transform', i, i + 1, { counter: i, sum: i * (i + 1) / 2, target: n });
      h.append('check', 'switch', i + 1, i + 2, 'inc');
    }
    expect(h.length).toBe(2 * n);
    const perRecord = (h.byteSize - empty) / h.length;
    // Columns, one JSON text per object output, shared switch targets: well under 100 bytes a record.
    expect(perRecord).toBeGreaterThan(20);
    expect(perRecord).toBeLessThan(100);
    expect(h.nodeExecution('inc', 12_345)).toEqual({ counter: 12_345, sum: (12_345 * 12_346) / 2, target: n });
    expect(h.contextAt(7)).toEqual({ inc: { counter: 3, sum: 6, target: n }, check: 'inc' });
  });
});
