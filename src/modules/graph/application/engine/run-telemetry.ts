import type { ExecutionTelemetry, NodeTelemetry } from './execution-types';

/** A run's per-node-type and per-node-id counters (only kept when the caller asked for telemetry). */
export class RunTelemetry {
  private readonly byNodeType = new Map<string, NodeTelemetry>();
  private readonly byNodeId = new Map<string, NodeTelemetry>();
  private errors = 0;

  /** Counts one node execution of `ms` milliseconds under its type and its id. */
  count(nodeType: string, nodeId: string, ms: number, failed: boolean): void {
    if (failed) this.errors++;
    add(this.byNodeType, nodeType, ms, failed);
    add(this.byNodeId, nodeId, ms, failed);
  }

  /** A copy of the counters, with the run-level figures the run itself knows. */
  snapshot(totalDurationMs: number, pausedMs: number, nodeExecutions: number): ExecutionTelemetry {
    return {
      totalDurationMs,
      pausedMs,
      nodeExecutions,
      errorCount: this.errors,
      byNodeType: Object.fromEntries([...this.byNodeType].map(([k, v]) => [k, { ...v }])),
      byNodeId: Object.fromEntries([...this.byNodeId].map(([k, v]) => [k, { ...v }])),
    };
  }
}

function add(map: Map<string, NodeTelemetry>, key: string, ms: number, failed: boolean): void {
  let entry = map.get(key);
  if (!entry) map.set(key, (entry = { count: 0, totalMs: 0, errors: 0 }));
  entry.count++;
  entry.totalMs += ms;
  if (failed) entry.errors++;
}
