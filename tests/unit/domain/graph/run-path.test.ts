import { runPath } from '../../../../src/modules/graph/domain/run-path';

const run = (...ids: string[]) => ids.map((nodeId) => ({ nodeId }));

describe('runPath', () => {
  it('counts each node run and each edge taken, edges in the order first taken', () => {
    const p = runPath(run('entry', 'step', 'check', 'step', 'check', 'step', 'check', 'exit'));
    expect(p.visits).toEqual({ entry: 1, step: 3, check: 3, exit: 1 });
    expect(p.traversals).toEqual([
      { source: 'entry', target: 'step', count: 1 },
      { source: 'step', target: 'check', count: 3 },
      { source: 'check', target: 'step', count: 2 },
      { source: 'check', target: 'exit', count: 1 },
    ]);
  });

  it('has no path for no executions, and no edge for one', () => {
    expect(runPath([])).toEqual({ visits: {}, traversals: [] });
    expect(runPath(run('entry'))).toEqual({ visits: { entry: 1 }, traversals: [] });
  });

  it('takes any node name, __proto__ and names with the separators of other keys included', () => {
    const p = runPath(run('__proto__', 'a,b', 'a', 'b,__proto__'));
    expect(Object.keys(p.visits)).toEqual(['__proto__', 'a,b', 'a', 'b,__proto__']);
    expect(p.visits['__proto__']).toBe(1);
    expect(p.traversals.map((t) => [t.source, t.target])).toEqual([
      ['__proto__', 'a,b'],
      ['a,b', 'a'],
      ['a', 'b,__proto__'],
    ]);
  });
});
