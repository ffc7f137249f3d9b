import { performance } from 'node:perf_hooks';
import { termScore, type SearchQuery } from '../../domain/search';
import { CancelledError } from '../../../../kernel/errors';
import { VarintReader } from './varint';
import { DamagedIndexError } from './segment-reader';
import { firstBlockFrom, planQuery, type PlanGroup, type QueryPlan, type SearchFilters, type SearchSegment, type SegmentPlan } from './search-plan';
import { TopHits, type ScoredHit } from './top-hits';

export { MAX_PREFIX_TERMS, type SearchFilters, type SearchSegment } from './search-plan';
export { compareHits, type ScoredHit } from './top-hits';

export interface EvaluateOptions {
  /** Hits wanted (a page and one more, to know whether another follows). */
  capacity: number;
  /** Only hits ranked after this one (a cursor's last hit). */
  after?: { score: number; ord: number };
  /** Matches are counted up to this many at least; past it `total` may stop there (totalExact false). */
  totalCap: number;
  /** false: every match is scored (the reference the pruned search must equal). */
  prune?: boolean;
  signal?: AbortSignal;
}

export interface EvaluateResult {
  /** The best hits after `after`, best first, at most `capacity`. */
  hits: ScoredHit[];
  total: number;
  totalExact: boolean;
}

/** One block of a term, decoded: ordinals and weighted term frequencies; positions decoded when a phrase asks. */
interface Block {
  ords: Int32Array;
  wtfs: Float64Array;
  counts?: Int32Array;
  posBytes?: Uint8Array;
  posStart?: Int32Array;
  pos?: Int32Array;
}

/** The first batch of intervals read when pruning; each next batch is this many times larger. */
const FIRST_BATCH = 8;
const BATCH_GROWTH = 8;
/** Intervals of one segment are numbered below this (a segment has fewer blocks). */
const INTERVAL_SPAN = 2 ** 24;
/** A search runs this long at most before letting the event loop serve others. */
const YIELD_MS = 20;

/**
 * Evaluates a parsed query over segments: the documents matching every positive group and no negated one, passing
 * the filters, each scored BM25F over the positive terms (statistics over every document searched), keeping only the
 * best `capacity`. With pruning (the default) intervals of documents are visited best bound first and skipped once
 * their bound is below the page's worst kept score; only the blocks of visited intervals are read and decoded, and
 * positions only for phrases. Matches are counted while intervals are visited in graph order, newest first, until
 * `totalCap` is reached (a one-word query without filters knows its total from its document frequency).
 */
export async function evaluateQuery(query: SearchQuery, filters: SearchFilters, segments: readonly SearchSegment[], opts: EvaluateOptions): Promise<EvaluateResult> {
  const plan = planQuery(query, filters, segments);
  const run = new Run(plan, filters, opts);
  const order = [...plan.segments].sort((a, b) => b.s.base - a.s.base);
  // Long searches (counting every match of a common word) let other calls in now and then, and can be cancelled.
  let slice = performance.now();
  const pause = async () => {
    if (performance.now() - slice > YIELD_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
    if (opts.signal?.aborted) throw new CancelledError();
  };
  const prune = opts.prune !== false;
  // 1. Count (and score) in graph order while the total is wanted.
  let counted = 0;
  if (!prune || plan.knownTotal === undefined) {
    for (const p of order) {
      if (prune && run.total >= opts.totalCap) break;
      await pause();
      const all = Array.from({ length: p.intervals }, (_, j) => j);
      run.read(p, all);
      for (const j of all) run.evaluate(p, j);
      counted++;
    }
  }
  const everyInterval = counted === order.length;
  // 2. The rest, best bound first, in growing batches, while a bound can still beat the page's worst hit.
  if (!everyInterval) {
    const rest = order.slice(counted);
    let ids: number[] = [];
    for (let pi = 0; pi < rest.length; pi++) for (let j = 0; j < rest[pi]!.intervals; j++) ids.push(pi * INTERVAL_SPAN + j);
    const ub = (id: number) => rest[Math.floor(id / INTERVAL_SPAN)]!.ub[id % INTERVAL_SPAN]!;
    let batch = FIRST_BATCH;
    while (ids.length) {
      await pause();
      const threshold = run.top.threshold;
      ids = ids.filter((id) => ub(id) >= threshold);
      let take = ids;
      if (ids.length > batch) {
        const cut = Float64Array.from(ids, ub).sort()[ids.length - batch]!;
        take = ids.filter((id) => ub(id) >= cut);
        ids = ids.filter((id) => ub(id) < cut);
      } else ids = [];
      take.sort((a, b) => ub(b) - ub(a));
      const bySegment = new Map<number, number[]>();
      for (const id of take) {
        const pi = Math.floor(id / INTERVAL_SPAN);
        let js = bySegment.get(pi);
        if (!js) bySegment.set(pi, (js = []));
        js.push(id % INTERVAL_SPAN);
      }
      for (const [pi, js] of bySegment) run.read(rest[pi]!, js);
      for (const id of take) if (ub(id) >= run.top.threshold) run.evaluate(rest[Math.floor(id / INTERVAL_SPAN)]!, id % INTERVAL_SPAN);
      batch *= BATCH_GROWTH;
    }
  }
  if (plan.knownTotal !== undefined) return { hits: run.top.sorted(), total: plan.knownTotal, totalExact: true };
  // Not every interval was visited only when the count had reached the cap.
  return { hits: run.top.sorted(), total: everyInterval ? run.total : opts.totalCap, totalExact: everyInterval };
}

/** One search's state: decoded blocks per segment, the top hits, the matches counted. */
class Run {
  readonly top: TopHits;
  total = 0;
  private readonly blocks = new Map<SegmentPlan, Map<number, Block>>();

  constructor(
    private readonly plan: QueryPlan,
    private readonly filters: SearchFilters,
    opts: EvaluateOptions,
  ) {
    this.top = new TopHits(opts.capacity, opts.after);
  }

  /** The blocks of slot `k` overlapping interval `j`. */
  private blocksOf(p: SegmentPlan, k: number, j: number): [number, number] {
    const seg = p.s.seg;
    const idx = p.slots[k]!.idx;
    const from = firstBlockFrom(seg, idx, p.lo[j]!);
    let to = from;
    while (to < seg.blockTo(idx) && (to === seg.blockFrom(idx) || seg.blockLast(to - 1) < p.hi[j]!)) to++;
    return [from, to];
  }

  /** Reads and decodes every block the intervals `js` of `p` need that is not decoded yet (one read per run of blocks). */
  read(p: SegmentPlan, js: readonly number[]): void {
    let cache = this.blocks.get(p);
    if (!cache) this.blocks.set(p, (cache = new Map()));
    const seg = p.s.seg;
    for (let k = 0; k < p.slots.length; k++) {
      const want: number[] = [];
      for (const j of js) {
        const [from, to] = this.blocksOf(p, k, j);
        for (let b = from; b < to; b++) if (!cache.has(b)) want.push(b);
      }
      if (!want.length) continue;
      want.sort((a, b) => a - b);
      const sl = p.slots[k]!;
      for (let i = 0; i < want.length; ) {
        let e = i + 1;
        while (e < want.length && want[e]! <= want[e - 1]! + 1) e++;
        const from = want[i]!;
        const to = want[e - 1]! + 1;
        i = e;
        const fd = p.s.open?.();
        const [d0, d1] = seg.docRange(sl.idx, from, to);
        const r = new VarintReader(seg.readSync(fd, d0, d1));
        const [p0, p1] = sl.positions ? seg.posRange(sl.idx, from, to) : [0, 0];
        const posBuf = sl.positions ? seg.readSync(fd, p0, p1) : undefined;
        let pAt = 0;
        for (let b = from; b < to; b++) {
          const n = seg.blockSize(sl.idx, b);
          const blk: Block = { ords: new Int32Array(n), wtfs: new Float64Array(n) };
          if (posBuf) blk.counts = new Int32Array(n);
          seg.decodeDocs(sl.idx, b, r, blk.ords, blk.wtfs, 0, blk.counts);
          if (posBuf) {
            const end = seg.posRange(sl.idx, b, b + 1)[1] - p0;
            blk.posBytes = posBuf.subarray(pAt, end);
            pAt = end;
          }
          cache.set(b, blk);
        }
      }
    }
  }

  /** Scores the matches of interval `j` of `p` into the top hits and counts them. */
  evaluate(p: SegmentPlan, j: number): void {
    const seg = p.s.seg;
    const cache = this.blocks.get(p)!;
    const lo = p.lo[j]!;
    const hi = Math.min(p.hi[j]!, p.s.limit - 1);
    const cursors = p.slots.map((_, k) => {
      const [from, to] = this.blocksOf(p, k, j);
      const list: Block[] = [];
      for (let b = from; b < to; b++) list.push(cache.get(b)!);
      return new SlotCursor(list);
    });
    const candidates = this.candidates(p, cursors, lo, hi);
    const f = this.filters;
    const timed = f.sinceMs !== undefined || f.untilMs !== undefined;
    for (let c = 0; c < candidates.length; c++) {
      const d = candidates[c]!;
      if (f.role !== undefined && seg.roleAt(d) !== f.role) continue;
      if (timed) {
        const at = seg.createdAt(d);
        if (Number.isNaN(at) || (f.sinceMs !== undefined && at < f.sinceMs) || (f.untilMs !== undefined && at > f.untilMs)) continue;
      }
      if (!p.tagSlots.every((k) => cursors[k]!.seek(d) >= 0)) continue;
      if (!p.required.every((g) => satisfied(g, d, cursors))) continue;
      if (p.negated.some((g) => satisfied(g, d, cursors))) continue;
      this.total++;
      const length = seg.weightedLengthOf(d);
      let score = 0;
      for (const k of p.positiveSlots) {
        const cur = cursors[k]!;
        const i = cur.seek(d);
        if (i >= 0) score += termScore(p.slots[k]!.idf, cur.block!.wtfs[i]!, length, this.plan.avgLength);
      }
      this.top.offer(score, p.s.base >= 0 ? p.s.base + d : p.s.base - d, p.si, d);
    }
  }

  /** Ordinals in [lo, hi] that may match, ascending: those of the required group with the fewest postings here. */
  private candidates(p: SegmentPlan, cursors: SlotCursor[], lo: number, hi: number): Int32Array {
    let best: PlanGroup | undefined;
    let bestSize = Infinity;
    for (const g of p.required) {
      let size = 0;
      for (const it of g.items) size += it.phrase ? Math.min(...it.slots.map((k) => cursors[k]!.size)) : it.slots.reduce((n, k) => n + cursors[k]!.size, 0);
      if (size < bestSize) (best = g), (bestSize = size);
    }
    const lists: Int32Array[] = [];
    for (const it of best!.items) {
      const ks = it.phrase ? [it.slots.reduce((a, b) => (cursors[a]!.size <= cursors[b]!.size ? a : b))] : it.slots;
      for (const k of ks) for (const blk of cursors[k]!.blocks) lists.push(within(blk.ords, lo, hi));
    }
    if (lists.length === 1) return lists[0]!;
    const all = new Int32Array(lists.reduce((n, l) => n + l.length, 0));
    let at = 0;
    for (const l of lists) all.set(l, at), (at += l.length);
    all.sort();
    let w = 0;
    for (let i = 0; i < all.length; i++) if (w === 0 || all[i] !== all[w - 1]) all[w++] = all[i]!;
    return all.subarray(0, w);
  }
}

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
  while (e < ords.length && ords[e]! <= hi) e++;
  return ords.subarray(a, e);
}

/** Does document `d` satisfy one of the group's items? */
function satisfied(g: PlanGroup, d: number, cursors: SlotCursor[]): boolean {
  for (const it of g.items) {
    if (!it.phrase) {
      if (it.slots.some((k) => cursors[k]!.seek(d) >= 0)) return true;
      continue;
    }
    if (!it.slots.every((k) => cursors[k]!.seek(d) >= 0)) continue;
    const lists = it.slots.map((k) => cursors[k]!.positions(d));
    const first = lists[0]!;
    for (let q = 0; q < first.length; q++) {
      const at = first[q]!;
      if (lists.every((l, i) => l.includes(at + it.offsets[i]!))) return true;
    }
  }
  return false;
}

/** Walks a slot's decoded blocks over an interval's ascending candidates. */
class SlotCursor {
  private bi = 0;
  private k = 0;
  readonly size: number;
  constructor(readonly blocks: Block[]) {
    this.size = blocks.reduce((n, b) => n + b.ords.length, 0);
  }

  get block(): Block | undefined {
    return this.blocks[this.bi];
  }

  /** The index of `d` in the current block, or -1; `d` never decreases between calls. */
  seek(d: number): number {
    while (this.bi < this.blocks.length) {
      const ords = this.blocks[this.bi]!.ords;
      while (this.k < ords.length && ords[this.k]! < d) this.k++;
      if (this.k < ords.length) return ords[this.k] === d ? this.k : -1;
      this.bi++;
      this.k = 0;
    }
    return -1;
  }

  /** Positions of `d` (which seek found). */
  positions(d: number): Int32Array {
    const i = this.seek(d);
    const blk = this.block!;
    if (!blk.pos) decodePositions(blk);
    return blk.pos!.subarray(blk.posStart![i]!, blk.posStart![i + 1]!);
  }
}

function decodePositions(blk: Block): void {
  const n = blk.ords.length;
  const posStart = new Int32Array(n + 1);
  const pos = new Int32Array(blk.posBytes!.length);
  const r = new VarintReader(blk.posBytes!);
  let np = 0;
  try {
    for (let i = 0; i < n; i++) {
      posStart[i] = np;
      let p = 0;
      for (let c = 0; c < blk.counts![i]!; c++) pos[np++] = p += r.read();
    }
  } catch (e) {
    throw new DamagedIndexError(`positions of a search block: ${(e as Error).message}`);
  }
  posStart[n] = np;
  blk.posStart = posStart;
  blk.pos = pos.subarray(0, np);
}
