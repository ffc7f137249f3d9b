import { CycleDetectedError, InvalidArgumentsError } from '../../../../src/kernel/errors';
import { checkGraphDefinition, createTaskGraph, findCycle, renderMermaid, startableNodes, countByStatus } from '../../../../src/modules/tasks/domain';

describe('checkGraphDefinition', () => {
  it('refuses an empty graph', () => {
    expect(() => checkGraphDefinition([])).toThrow(InvalidArgumentsError);
  });
  it('refuses duplicate ids naming both positions', () => {
    expect(() => checkGraphDefinition([{ id: 'a', title: 'x' }, { id: 'a', title: 'y' }])).toThrow("nodes[1].id: duplicate node id 'a' (also nodes[0])");
  });
  it('refuses unknown dependencies', () => {
    expect(() => checkGraphDefinition([{ id: 'a', title: 'x', depends_on: ['nope'] }])).toThrow("depends on unknown node 'nope'");
  });
  it('names a two-node cycle as a -> b -> a', () => {
    let err: unknown;
    try {
      checkGraphDefinition([{ id: 'a', title: 'x', depends_on: ['b'] }, { id: 'b', title: 'y', depends_on: ['a'] }]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CycleDetectedError);
    expect((err as Error).message).toBe('dependency cycle: a -> b -> a');
  });
  it('finds a self dependency and a longer cycle behind an acyclic prefix', () => {
    expect(findCycle([{ id: 'a', depends_on: ['a'] }])).toEqual(['a', 'a']);
    expect(
      findCycle([
        { id: 's', depends_on: ['x'] },
        { id: 'x', depends_on: ['y'] },
        { id: 'y', depends_on: ['z'] },
        { id: 'z', depends_on: ['x'] },
      ]),
    ).toEqual(['x', 'y', 'z', 'x']);
  });
  it('accepts a diamond and a 10,000-deep chain (no recursion limit)', () => {
    expect(findCycle([{ id: 'a' }, { id: 'b', depends_on: ['a'] }, { id: 'c', depends_on: ['a'] }, { id: 'd', depends_on: ['b', 'c'] }])).toBeUndefined();
    const chain = Array.from({ length: 10_000 }, (_, i) => ({ id: `n${i}`, title: 't', depends_on: i ? [`n${i - 1}`] : [] }));
    expect(() => checkGraphDefinition(chain)).not.toThrow();
  });
});

describe('ready set, counts and Mermaid', () => {
  const g = createTaskGraph({
    projectId: 'p', projectName: 'P', projectRoot: '/', now: '2025-01-01T00:00:00.000Z',
    nodes: [
      { id: 'setup', title: 'Set "up" <env>' },
      { id: 'build', title: 'Build', depends_on: ['setup'] },
      { id: 'lint', title: 'Lint' },
    ],
  });

  it('lists READY nodes and counts every status', () => {
    expect(startableNodes(g).map((n) => n.id)).toEqual(['setup', 'lint']);
    expect(countByStatus(g)).toEqual({ PENDING: 1, READY: 2, IN_PROGRESS: 0, VALIDATING: 0, RETRYING: 0, COMPLETED: 0, FAILED: 0 });
  });

  it('applies defaults: max_attempts 3, timeout 10 minutes', () => {
    expect(g.nodes[0]).toMatchObject({ max_attempts: 3, timeout_ms: 600_000, current_attempt: 0, error_logs: [], depends_on: [] });
  });

  it('renders a flowchart with escaped labels, dependency edges and one class per status', () => {
    const m = renderMermaid(g);
    expect(m.split('\n')[0]).toBe('flowchart TD');
    expect(m).toContain('t0["setup: Set #quot;up#quot; #lt;env#gt;<br/>READY"]');
    expect(m).toContain('t0 --> t1');
    expect(m).toContain('classDef completed ');
    expect(m).toContain('class t0,t2 ready');
    expect(m).toContain('class t1 pending');
    expect(m).not.toContain('class  ');
  });
});
