import { DescendantCollector, dependentCountsPerRoot, dependentsOf } from '../../../../src/modules/knowledge/domain/descendant-collector';

const n = (id: string, ...parents: string[]) => ({ id, parents });

describe('dependents of a delete set', () => {
  it('finds transitive descendants through parents, outside the set', () => {
    const nodes = [n('a'), n('b', 'a'), n('c', 'b'), n('d', 'c', 'x'), n('x'), n('y', 'x')];
    expect(dependentsOf(['a'], nodes).sort()).toEqual(['b', 'c', 'd']);
    expect(dependentsOf(['x'], nodes).sort()).toEqual(['d', 'y']);
  });

  it('excludes nodes that are themselves in the set', () => {
    const nodes = [n('a'), n('b', 'a'), n('c', 'b')];
    expect(dependentsOf(['a', 'b', 'c'], nodes)).toEqual([]);
    expect(dependentsOf(['a', 'c'], nodes)).toEqual(['b']);
  });

  it('reaches a fixpoint whatever the line order (children before parents)', () => {
    // Reverse order: every pass only discovers one more generation.
    const nodes = [n('e', 'd'), n('d', 'c'), n('c', 'b'), n('b', 'a'), n('a')];
    const collector = new DescendantCollector(['a']);
    let passes = 0;
    do {
      passes++;
      for (const x of nodes) collector.visit(x.id, x.parents);
    } while (collector.endPass());
    expect(collector.dependents().sort()).toEqual(['b', 'c', 'd', 'e']);
    expect(passes).toBe(5);
  });

  it('needs one pass plus one confirming pass in append order', () => {
    const nodes = [n('a'), n('b', 'a'), n('c', 'b'), n('z')];
    const collector = new DescendantCollector(['a']);
    let passes = 0;
    do {
      passes++;
      for (const x of nodes) collector.visit(x.id, x.parents);
    } while (collector.endPass());
    expect(passes).toBe(2);
    expect(collector.watched.has('c')).toBe(true);
    expect(collector.watched.has('z')).toBe(false);
  });

  it('counts dependents per root for the warnings', () => {
    const deps = new Map<string, string[]>([
      ['b', ['a']],
      ['c', ['b']],
      ['y', ['x']],
      ['d', ['c', 'x']],
    ]);
    const counts = dependentCountsPerRoot(['a', 'x', 'q'], deps);
    expect(counts.get('a')).toBe(3);
    expect(counts.get('x')).toBe(2);
    expect(counts.get('q')).toBe(0);
  });
});
