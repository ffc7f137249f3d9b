import type { ExecutionHistory } from '../../domain/execution-history';

/** The JSONata history functions of one run, passed as per-evaluation bindings (see CompiledJsonata). */
export type HistoryBindings = Record<string, unknown>;

/**
 * `$previousNode(n?)`, `$executionCount(id)`, `$nodeExecution(id, i)`, `$nodeExecutions(id)` over one run's history.
 * Created once per run and reused for every evaluation of that run; each answers from the history's per-node indexes.
 * Missing answers are `null` (as in mcpgraph), so `$nodeExecution("x", -1).counter` is simply undefined.
 */
export function createHistoryBindings(history: ExecutionHistory): HistoryBindings {
  return {
    previousNode: (n?: unknown) => history.previousNode(typeof n === 'number' ? n : 1),
    executionCount: (id: unknown) => (typeof id === 'string' ? history.executionCount(id) : 0),
    nodeExecution: (id: unknown, i: unknown) =>
      typeof id === 'string' && typeof i === 'number' ? history.nodeExecution(id, i) : null,
    nodeExecutions: (id: unknown) => (typeof id === 'string' ? history.nodeExecutions(id) : []),
  };
}
