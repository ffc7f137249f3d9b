import type { NodeExecutionRecord } from './types';

/**
 * The history of one run, with the indexes that make every question about it cheap:
 * - `context` — `{[nodeId]: latest output}` — is updated in place as each record is added (O(1)), never rebuilt;
 * - a per-node list of execution indexes answers the JSONata history functions in O(1) (O(k) for k items returned)
 *   and reconstructs the context any past node saw by binary search (time travel) without replaying expressions.
 */
export class ExecutionHistory {
  private readonly records: NodeExecutionRecord[] = [];
  private readonly indexesByNode = new Map<string, number[]>();
  /** The expression context: the latest output of each node. Mutated in place; expressions read it, never write it. */
  readonly context: Record<string, unknown> = Object.create(null) as Record<string, unknown>;

  /** Number of records (= the executionIndex the next node will get). */
  get length(): number {
    return this.records.length;
  }

  /** Every record, oldest first. A live read-only view: copy it if you keep it while the run goes on. */
  all(): readonly NodeExecutionRecord[] {
    return this.records;
  }

  /** Adds a record; its executionIndex must be {@link length}. A failed node's record leaves the context unchanged. */
  add(record: NodeExecutionRecord): void {
    if (record.executionIndex !== this.records.length) {
      throw new Error(`executionIndex ${record.executionIndex} out of order (expected ${this.records.length})`);
    }
    this.records.push(record);
    let list = this.indexesByNode.get(record.nodeId);
    if (!list) {
      list = [];
      this.indexesByNode.set(record.nodeId, list);
    }
    list.push(record.executionIndex);
    if (record.error === undefined) this.context[record.nodeId] = record.output;
  }

  byIndex(executionIndex: number): NodeExecutionRecord | undefined {
    return Number.isInteger(executionIndex) ? this.records[executionIndex] : undefined;
  }

  /** Output of the node that ran `stepsBack` executions before the next one (1 = the previous node), or null. */
  previousNode(stepsBack = 1): unknown {
    const record = this.records[this.records.length - stepsBack];
    return stepsBack >= 1 && record !== undefined ? record.output : null;
  }

  executionCount(nodeId: string): number {
    return this.indexesByNode.get(nodeId)?.length ?? 0;
  }

  /** Output of the i-th execution of `nodeId` (0 = first; negative counts from the end, -1 = latest), or null. */
  nodeExecution(nodeId: string, i: number): unknown {
    const list = this.indexesByNode.get(nodeId);
    if (!list || !Number.isInteger(i)) return null;
    const at = i < 0 ? list.length + i : i;
    return at >= 0 && at < list.length ? this.records[list[at]!]!.output : null;
  }

  /** Outputs of every execution of `nodeId`, oldest first. */
  nodeExecutions(nodeId: string): unknown[] {
    const list = this.indexesByNode.get(nodeId);
    return list ? list.map((idx) => this.records[idx]!.output) : [];
  }

  /**
   * The context node `executionIndex` saw when it started: for each node, the output of its latest successful
   * execution before that index. O(nodes × log executions). Undefined for an index not yet reached.
   */
  contextAt(executionIndex: number): Record<string, unknown> | undefined {
    if (!Number.isInteger(executionIndex) || executionIndex < 0 || executionIndex > this.records.length) return undefined;
    const ctx: Record<string, unknown> = {};
    for (const [nodeId, list] of this.indexesByNode) {
      // Last position in `list` whose index is < executionIndex and whose record did not fail.
      let pos = lastBelow(list, executionIndex);
      while (pos >= 0 && this.records[list[pos]!]!.error !== undefined) pos--;
      if (pos >= 0) ctx[nodeId] = this.records[list[pos]!]!.output;
    }
    return ctx;
  }
}

/** Largest position p with sorted[p] < bound, or -1. */
function lastBelow(sorted: readonly number[], bound: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < bound) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}
