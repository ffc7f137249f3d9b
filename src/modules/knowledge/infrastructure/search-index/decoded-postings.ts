import { BLOCK_POSTINGS } from './segment-format';
import { DamagedIndexError, type LoadedSegment } from './segment-reader';
import { VarintReader } from './varint';

/** Blocks decoded by one read: their ordinals and weighted term frequencies side by side (block `from` first). */
interface Run {
  from: number;
  ords: Int32Array;
  wtfs: Float64Array;
  counts?: Int32Array;
  posBytes?: Uint8Array;
  /** Where each block's positions start in posBytes (relative to the run's first block's). */
  posAt?: number[];
}

/**
 * One term's postings in one segment as a search decodes them: only the blocks it visits, a run of neighbouring
 * blocks per read, ordinals and weighted term frequencies without positions; a block's positions decoded only when a
 * phrase asks for one of its documents.
 */
export class DecodedTerm {
  private readonly runs: Array<Run | undefined>;
  private readonly positions = new Map<number, { start: Int32Array; pos: Int32Array }>();
  readonly first: number;

  constructor(
    private readonly seg: LoadedSegment,
    readonly idx: number,
    private readonly withPositions: boolean,
  ) {
    this.first = seg.blockFrom(idx);
    this.runs = new Array(seg.blockTo(idx) - this.first);
  }

  has(b: number): boolean {
    return this.runs[b - this.first] !== undefined;
  }

  run(b: number): Run {
    return this.runs[b - this.first]!;
  }

  /** Decodes blocks [from, to) (one read of their document streams; their position streams too for a phrase). */
  load(fd: number | undefined, from: number, to: number): void {
    const seg = this.seg;
    let n = 0;
    for (let b = from; b < to; b++) n += seg.blockSize(this.idx, b);
    const run: Run = { from, ords: new Int32Array(n), wtfs: new Float64Array(n) };
    if (this.withPositions) run.counts = new Int32Array(n);
    const [d0, d1] = seg.docRange(this.idx, from, to);
    const r = new VarintReader(seg.readSync(fd, d0, d1));
    let at = 0;
    for (let b = from; b < to; b++) at = seg.decodeDocs(this.idx, b, r, run.ords, run.wtfs, at, run.counts);
    if (this.withPositions) {
      const [p0, p1] = seg.posRange(this.idx, from, to);
      run.posBytes = seg.readSync(fd, p0, p1);
      run.posAt = [];
      for (let b = from; b < to; b++) run.posAt.push(seg.posRange(this.idx, b, b + 1)[0] - p0);
      run.posAt.push(p1 - p0);
    }
    for (let b = from; b < to; b++) this.runs[b - this.first] = run;
  }

  /** Does the `k`-th document of block `b` have a word at `position`? */
  hasPosition(b: number, k: number, position: number): boolean {
    const { start, pos } = this.positionsOf(b);
    for (let q = start[k]!; q < start[k + 1]!; q++) {
      if (pos[q] === position) return true;
      if (pos[q]! > position) return false;
    }
    return false;
  }

  /** Block `b`'s positions: those of its `k`-th document are pos[start[k] .. start[k + 1]). */
  positionsOf(b: number): { start: Int32Array; pos: Int32Array } {
    let p = this.positions.get(b);
    if (!p) this.positions.set(b, (p = this.decodePositions(b)));
    return p;
  }

  private decodePositions(b: number): { start: Int32Array; pos: Int32Array } {
    const run = this.runs[b - this.first];
    if (!run?.posBytes || !run.counts || !run.posAt) throw new DamagedIndexError(`${this.seg.file}: positions of block ${b} were not read`);
    const base = (b - run.from) * BLOCK_POSTINGS;
    const bytes = run.posBytes.subarray(run.posAt[b - run.from]!, run.posAt[b - run.from + 1]!);
    const n = this.seg.blockSize(this.idx, b);
    const start = new Int32Array(n + 1);
    const pos = new Int32Array(bytes.length);
    const r = new VarintReader(bytes);
    let np = 0;
    try {
      for (let i = 0; i < n; i++) {
        start[i] = np;
        let p = 0;
        for (let c = 0; c < run.counts[base + i]!; c++) pos[np++] = p += r.read();
      }
    } catch (e) {
      throw new DamagedIndexError(`${this.seg.file}: ${(e as Error).message}`);
    }
    start[n] = np;
    return { start, pos: pos.subarray(0, np) };
  }
}

/** Walks a term's decoded blocks [from, to) over ascending documents. */
export class TermCursor {
  /** The current block, its run's arrays, and the index in them (i) and end of the block's documents. */
  b: number;
  ords: Int32Array = EMPTY_ORDS;
  wtfs: Float64Array = EMPTY_WTFS;
  i = 0;
  private end = 0;
  private off = 0;

  constructor(
    readonly term: DecodedTerm,
    private readonly seg: LoadedSegment,
    from: number,
    private readonly to: number,
  ) {
    this.b = from;
    if (from < to) this.enter();
  }

  private enter(): void {
    const run = this.term.run(this.b);
    this.ords = run.ords;
    this.wtfs = run.wtfs;
    this.off = (this.b - run.from) * BLOCK_POSTINGS;
    this.i = this.off;
    this.end = this.off + this.seg.blockSize(this.term.idx, this.b);
  }

  /** Documents in the blocks walked (an estimate of the work a candidate list from them costs). */
  get size(): number {
    return (this.to - this.b) * BLOCK_POSTINGS;
  }

  /** Found: `d` is ords[i] (wtfs[i] its frequency); else -1. `d` never decreases between calls. */
  seek(d: number): number {
    while (this.b < this.to) {
      const ords = this.ords;
      let i = this.i;
      const end = this.end;
      while (i < end && ords[i]! < d) i++;
      this.i = i;
      if (i < end) return ords[i] === d ? i : -1;
      if (++this.b < this.to) this.enter();
    }
    return -1;
  }

  /** The position of the document the cursor stands on within its block. */
  get k(): number {
    return this.i - this.off;
  }

  /** The ordinals of blocks [b, to) within [lo, hi], ascending (the cursor does not move). */
  collect(lo: number, hi: number): Int32Array {
    const out: Int32Array[] = [];
    for (let b = this.b; b < this.to; ) {
      const run = this.term.run(b);
      // The blocks of one run from b on, up to `to`.
      const last = Math.min(this.to, run.from + runBlocks(run));
      const start = (b - run.from) * BLOCK_POSTINGS;
      const stop = (last - 1 - run.from) * BLOCK_POSTINGS + this.seg.blockSize(this.term.idx, last - 1);
      out.push(within(run.ords.subarray(start, stop), lo, hi));
      b = last;
    }
    if (out.length === 1) return out[0]!;
    const all = new Int32Array(out.reduce((n, l) => n + l.length, 0));
    let at = 0;
    for (const l of out) all.set(l, at), (at += l.length);
    return all;
  }
}

function runBlocks(run: Run): number {
  return Math.ceil(run.ords.length / BLOCK_POSTINGS);
}

const EMPTY_ORDS = new Int32Array(0);
const EMPTY_WTFS = new Float64Array(0);

/** The part of ascending `ords` within [lo, hi]. */
function within(ords: Int32Array, lo: number, hi: number): Int32Array {
  let a = 0;
  let b = ords.length;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (ords[m]! < lo) a = m + 1;
    else b = m;
  }
  let e = a;
  b = ords.length;
  while (e < b) {
    const m = (e + b) >>> 1;
    if (ords[m]! <= hi) e = m + 1;
    else b = m;
  }
  return ords.subarray(a, e);
}
