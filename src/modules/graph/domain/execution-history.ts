import { jsonByteLength, MAX_STRING_CHARS } from '../../../kernel/json-size';
import type { NodeExecutionError, NodeExecutionRecord, NodeType } from './types';
import { recordsView } from './execution-records-view';
import { U32List } from './u32-list';

/** How a record's output is kept (see {@link ExecutionHistory}). */
const enum OutputKind {
  /** `undefined`. */
  Undefined = 0,
  /** A primitive kept as it is (string, number, boolean, null): switch targets, counters. */
  Primitive = 1,
  /** An object or array kept as its JSON text, parsed again when read. */
  Json = 2,
  /** A value JSON cannot hold (a function, a cycle): kept as it is. Rare. */
  Raw = 3,
}

/**
 * Approximate bytes a string takes in V8's heap: header plus one byte per character (Latin-1 strings; the usual JSON
 * of numbers, ids and ASCII text), rounded up to 8.
 */
function stringBytes(s: string): number {
  return 16 + ((s.length + 7) & ~7);
}

/**
 * Whether an output's JSON is surely far below V8's longest string without measuring it: a flat array or object (the
 * usual loop state, `{counter, sum, target}`) of few items whose strings are not huge. Anything else is measured.
 */
function surelySmall(value: object): boolean {
  let items = 0;
  let chars = 0;
  const small = (v: unknown): boolean => {
    if (++items > FLAT_ITEMS) return false;
    if (typeof v === 'string') chars += v.length;
    return (v === null || typeof v !== 'object') && chars < FLAT_CHARS;
  };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!small(value[i])) return false;
    return true;
  }
  for (const key in value) if (!small((value as Record<string, unknown>)[key])) return false;
  return true;
}

const FLAT_ITEMS = 256;
const FLAT_CHARS = 64 * 1024 * 1024;

/** Per node: its id, type, the execution indexes where it ran, and its latest output as produced (not re-parsed). */
interface NodeColumn {
  id: string;
  type: NodeType;
  indexes: U32List;
  latest: unknown;
}

/**
 * The history of one run, stored compactly (a long loop keeps millions of records), with the indexes that make every
 * question about it cheap:
 * - records are columns: node (4 bytes), start and end time (8 bytes each), how the output is kept (1 byte) and the
 *   output — primitives as they are, objects and arrays as their JSON text (typically a third of the live object
 *   graph), parsed again when read; errors in a side map. {@link byteSize} is what the history holds, so the host can
 *   cap a run and bound what it keeps after runs end;
 * - `context` — `{[nodeId]: latest output}` — is updated in place as each record is added (O(1)), never rebuilt;
 * - a per-node list of execution indexes answers the JSONata history functions in O(1) (O(k) for k items returned);
 *   the latest output of each node and of the run is kept live, so the usual `$nodeExecution(id, -1)` and
 *   `$previousNode()` parse nothing;
 * - the context any past node saw is rebuilt by binary search (time travel) without replaying expressions.
 * Outputs read back are JSON copies: what a JSON answer holds (no `undefined` inside objects, no functions).
 */
export class ExecutionHistory {
  private count = 0;
  private capacity = 0;
  private nodeOf = new Uint32Array(0);
  private starts = new Float64Array(0);
  private ends = new Float64Array(0);
  private kinds = new Uint8Array(0);
  private readonly outputs: unknown[] = [];
  private readonly errors = new Map<number, NodeExecutionError>();
  private readonly nodes: NodeColumn[] = [];
  private readonly nodeIndex = new Map<string, number>();
  private lastOutput: unknown = undefined;
  /** Bytes of the outputs and errors (the columns are counted from their capacity). */
  private payloadBytes = 0;
  private indexBytes = 0;
  /** The expression context: the latest output of each node. Mutated in place; expressions read it, never write it. */
  readonly context: Record<string, unknown> = Object.create(null) as Record<string, unknown>;

  /** Number of records (= the executionIndex the next node will get). */
  get length(): number {
    return this.count;
  }

  /** Approximate bytes this history holds: columns, outputs, errors and per-node indexes. */
  get byteSize(): number {
    return this.capacity * 21 + this.outputs.length * 8 + this.payloadBytes + this.indexBytes;
  }

  /**
   * Every record, oldest first, as a read-only array view: records are built when read (indexing, iteration, `map`,
   * `slice`…), never all held at once. Live: it grows while the run goes on.
   */
  all(): readonly NodeExecutionRecord[] {
    return recordsView(this);
  }

  /** Adds a record; its executionIndex must be {@link length}. A failed node's record leaves the context unchanged. */
  add(record: NodeExecutionRecord): void {
    if (record.executionIndex !== this.count) {
      throw new Error(`executionIndex ${record.executionIndex} out of order (expected ${this.count})`);
    }
    this.append(record.nodeId, record.nodeType, record.startTime, record.endTime, record.output, record.error);
  }

  /** Adds the next record from its fields (no record object: the engine's hot path). Returns its executionIndex. */
  append(nodeId: string, nodeType: NodeType, startTime: number, endTime: number, output: unknown, error?: NodeExecutionError): number {
    const index = this.count;
    if (index === this.capacity) this.grow();
    let n = this.nodeIndex.get(nodeId);
    if (n === undefined) {
      n = this.nodes.length;
      this.nodes.push({ id: nodeId, type: nodeType, indexes: new U32List(), latest: undefined });
      this.nodeIndex.set(nodeId, n);
      this.payloadBytes += stringBytes(nodeId) + 64;
    }
    const column = this.nodes[n]!;
    const before = column.indexes.bytes;
    this.indexBytes += column.indexes.push(index) - before;
    column.latest = output;
    this.nodeOf[index] = n;
    this.starts[index] = startTime;
    this.ends[index] = endTime;
    this.store(index, output);
    if (error !== undefined) {
      this.errors.set(index, error);
      this.payloadBytes += 64 + stringBytes(error.message);
    } else {
      this.context[nodeId] = output;
    }
    this.lastOutput = output;
    this.count = index + 1;
    return index;
  }

  byIndex(executionIndex: number): NodeExecutionRecord | undefined {
    if (!Number.isInteger(executionIndex) || executionIndex < 0 || executionIndex >= this.count) return undefined;
    const column = this.nodes[this.nodeOf[executionIndex]!]!;
    const startTime = this.starts[executionIndex]!;
    const endTime = this.ends[executionIndex]!;
    const error = this.errors.get(executionIndex);
    return {
      executionIndex,
      nodeId: column.id,
      nodeType: column.type,
      startTime,
      endTime,
      duration: endTime - startTime,
      output: this.outputAt(executionIndex),
      ...(error !== undefined ? { error } : {}),
    };
  }

  /** Output of the node that ran `stepsBack` executions before the next one (1 = the previous node), or null. */
  previousNode(stepsBack = 1): unknown {
    if (!(stepsBack >= 1) || stepsBack > this.count) return null;
    if (stepsBack === 1) return this.lastOutput;
    return Number.isInteger(stepsBack) ? this.outputAt(this.count - stepsBack) : null;
  }

  executionCount(nodeId: string): number {
    const n = this.nodeIndex.get(nodeId);
    return n === undefined ? 0 : this.nodes[n]!.indexes.length;
  }

  /** Output of the i-th execution of `nodeId` (0 = first; negative counts from the end, -1 = latest), or null. */
  nodeExecution(nodeId: string, i: number): unknown {
    const n = this.nodeIndex.get(nodeId);
    if (n === undefined || !Number.isInteger(i)) return null;
    const column = this.nodes[n]!;
    const list = column.indexes;
    const at = i < 0 ? list.length + i : i;
    if (at < 0 || at >= list.length) return null;
    return at === list.length - 1 ? column.latest : this.outputAt(list.at(at));
  }

  /** Outputs of every execution of `nodeId`, oldest first. */
  nodeExecutions(nodeId: string): unknown[] {
    const n = this.nodeIndex.get(nodeId);
    if (n === undefined) return [];
    const column = this.nodes[n]!;
    const out = new Array<unknown>(column.indexes.length);
    for (let p = 0; p < out.length - 1; p++) out[p] = this.outputAt(column.indexes.at(p));
    if (out.length > 0) out[out.length - 1] = column.latest;
    return out;
  }

  /**
   * The context node `executionIndex` saw when it started: for each node, the output of its latest successful
   * execution before that index. O(nodes × log executions). Undefined for an index not yet reached.
   */
  contextAt(executionIndex: number): Record<string, unknown> | undefined {
    if (!Number.isInteger(executionIndex) || executionIndex < 0 || executionIndex > this.count) return undefined;
    const ctx: Record<string, unknown> = {};
    for (const column of this.nodes) {
      // Last position whose index is < executionIndex and whose record did not fail.
      let pos = column.indexes.lastBelow(executionIndex);
      while (pos >= 0 && this.errors.has(column.indexes.at(pos))) pos--;
      if (pos >= 0) ctx[column.id] = this.outputAt(column.indexes.at(pos));
    }
    return ctx;
  }

  private store(index: number, output: unknown): void {
    if (output === undefined) {
      this.kinds[index] = OutputKind.Undefined;
      this.outputs.push(undefined);
      return;
    }
    if (output === null || typeof output !== 'object') {
      if (typeof output === 'function' || typeof output === 'symbol' || typeof output === 'bigint') {
        this.kinds[index] = OutputKind.Raw;
        this.payloadBytes += 64;
      } else {
        this.kinds[index] = OutputKind.Primitive;
        // Strings are usually shared (switch targets); a long one is counted.
        if (typeof output === 'string' && output.length > 64) this.payloadBytes += stringBytes(output);
      }
      this.outputs.push(output);
      return;
    }
    let text: string | undefined;
    try {
      // An output could be JSON longer than V8's longest string (a transform repeating one long string): one that is not
      // surely small is measured first, without building the text, so it is kept as it is instead of building ~512 MiB
      // of text only to fail. Flat small outputs (the hot path of a loop) go straight to JSON.stringify.
      text = !surelySmall(output) && jsonByteLength(output, MAX_STRING_CHARS) > MAX_STRING_CHARS ? undefined : JSON.stringify(output);
    } catch {
      text = undefined;
    }
    if (text === undefined) {
      this.kinds[index] = OutputKind.Raw;
      this.payloadBytes += 64;
      this.outputs.push(output);
      return;
    }
    this.kinds[index] = OutputKind.Json;
    this.payloadBytes += stringBytes(text);
    this.outputs.push(text);
  }

  private outputAt(index: number): unknown {
    const value = this.outputs[index];
    return this.kinds[index] === OutputKind.Json ? JSON.parse(value as string) : value;
  }

  private grow(): void {
    const capacity = Math.max(64, this.capacity * 2);
    const nodeOf = new Uint32Array(capacity);
    nodeOf.set(this.nodeOf);
    const starts = new Float64Array(capacity);
    starts.set(this.starts);
    const ends = new Float64Array(capacity);
    ends.set(this.ends);
    const kinds = new Uint8Array(capacity);
    kinds.set(this.kinds);
    this.nodeOf = nodeOf;
    this.starts = starts;
    this.ends = ends;
    this.kinds = kinds;
    this.capacity = capacity;
  }
}
