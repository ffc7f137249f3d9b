import { performance } from 'node:perf_hooks';
import type { SearchQuery } from '../../domain/search';
import { termScore } from '../../domain/search/bm25';
import { CancelledError } from '../../../../kernel/errors';
import { DecodedTerm, TermCursor } from './decoded-postings';
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

/** The first batch of intervals read when pruning; each next batch is this many times larger. */
const FIRST_BATCH = 8;
const BATCH_GROWTH = 8;
/** A segment where this share of the intervals left can still beat the page is evaluated whole. */
const DENSE = 0.25;
/** Documents counted per chunk (read, then evaluated) while the total is counted. */
const COUNT_CHUNK = 4096;
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
  // 1. Count (and score) in graph order, newest first, while the total is wanted: chunks of intervals of about
  //    COUNT_CHUNK documents, read then evaluated; done[p] is the first interval of p evaluated so.
  const done = new Map<SegmentPlan, number>(order.map((p) => [p, p.intervals]));
  if (!prune || plan.knownTotal === undefined) {
    count: for (const p of order) {
      for (let j = p.intervals; j > 0; ) {
        if (prune && run.total >= opts.totalCap) break count;
        await pause();
        const hi = p.hi[j - 1]!;
        let from = j - 1;
        while (from > 0 && hi - p.lo[from - 1]! < COUNT_CHUNK) from--;
        run.read(p, [[p.lo[from]!, hi]]);
        run.evaluate(p, p.lo[from]!, hi);
        done.set(p, (j = from));
      }
    }
  }
  // 2. The rest, best bound first, in growing batches, while a bound can still beat the page's worst hit. A segment
  //    where most intervals can still beat it (a page already full: the threshold known) is read and evaluated
  //    whole at once: the same documents decoded, far fewer reads and evaluations.
  if (prune && run.top.threshold > -Infinity) {
    for (const p of order) {
      const d = done.get(p)!;
      if (!d) continue;
      let open = 0;
      for (let j = 0; j < d; j++) if (p.ub[j]! >= run.top.threshold) open++;
      if (open < DENSE * d) continue;
      await pause();
      run.read(p, [[0, p.hi[d - 1]!]]);
      run.evaluate(p, 0, p.hi[d - 1]!);
      done.set(p, 0);
    }
  }
  let left = 0;
  for (const p of order) left += done.get(p)!;
  const everyInterval = left === 0;
  if (!everyInterval) {
    const ubs = new Float64Array(left);
    const where = new Int32Array(left * 2);
    let n = 0;
    order.forEach((p, pi) => {
      for (let j = 0; j < done.get(p)!; j++) (ubs[n] = p.ub[j]!), (where[2 * n] = pi), (where[2 * n + 1] = j), n++;
    });
    let pending = new Int32Array(n);
    for (let i = 0; i < n; i++) pending[i] = i;
    let batch = FIRST_BATCH;
    while (pending.length) {
      await pause();
      const threshold = run.top.threshold;
      let w = 0;
      for (let i = 0; i < pending.length; i++) if (ubs[pending[i]!]! >= threshold) pending[w++] = pending[i]!;
      if (!w) break;
      // The `batch` best bounds (ties included) are taken; the others wait for the next round.
      let cut = -Infinity;
      if (w > batch) {
        const keys = new Float64Array(w);
        for (let i = 0; i < w; i++) keys[i] = ubs[pending[i]!]!;
        cut = keys.sort()[w - batch]!;
      }
      const take: number[] = [];
      let rest = 0;
      for (let i = 0; i < w; i++) {
        const id = pending[i]!;
        if (ubs[id]! >= cut) take.push(id);
        else pending[rest++] = id;
      }
      pending = pending.subarray(0, rest);
      take.sort((a, b) => ubs[b]! - ubs[a]!);
      const bySegment = new Map<number, Array<[number, number]>>();
      for (const i of take) {
        const pi = where[2 * i]!;
        const p = order[pi]!;
        const j = where[2 * i + 1]!;
        let r = bySegment.get(pi);
        if (!r) bySegment.set(pi, (r = []));
        r.push([p.lo[j]!, p.hi[j]!]);
      }
      for (const [pi, ranges] of bySegment) run.read(order[pi]!, ranges);
      for (const i of take) {
        if (ubs[i]! < run.top.threshold) continue;
        const p = order[where[2 * i]!]!;
        const j = where[2 * i + 1]!;
        run.evaluate(p, p.lo[j]!, p.hi[j]!);
      }
      batch *= BATCH_GROWTH;
    }
  }
  if (plan.knownTotal !== undefined) return { hits: run.top.sorted(), total: plan.knownTotal, totalExact: true };
  // Not every interval was visited only when the count had reached the cap.
  return { hits: run.top.sorted(), total: everyInterval ? run.total : opts.totalCap, totalExact: everyInterval };
}

/** One search's state: decoded postings per segment and slot, the top hits, the matches counted. */
class Run {
  readonly top: TopHits;
  total = 0;
  private readonly terms = new Map<SegmentPlan, DecodedTerm[]>();

  constructor(
    private readonly plan: QueryPlan,
    private readonly filters: SearchFilters,
    opts: EvaluateOptions,
  ) {
    this.top = new TopHits(opts.capacity, opts.after);
  }

  private termsOf(p: SegmentPlan): DecodedTerm[] {
    let t = this.terms.get(p);
    if (!t) this.terms.set(p, (t = p.slots.map((sl) => new DecodedTerm(p.s.seg, sl.idx, sl.positions))));
    return t;
  }

  /** The blocks of slot `k` overlapping ordinals [lo, hi]. */
  private blocksOf(p: SegmentPlan, k: number, lo: number, hi: number): [number, number] {
    const seg = p.s.seg;
    const idx = p.slots[k]!.idx;
    const from = firstBlockFrom(seg, idx, lo);
    let to = from;
    const end = seg.blockTo(idx);
    while (to < end && (to === seg.blockFrom(idx) || seg.blockLast(to - 1) < hi)) to++;
    return [from, to];
  }

  /** Decodes every block the ordinal ranges `ranges` ([lo, hi] pairs) of `p` need that is not decoded yet. */
  read(p: SegmentPlan, ranges: ReadonlyArray<readonly [number, number]>): void {
    const terms = this.termsOf(p);
    for (let k = 0; k < p.slots.length; k++) {
      const term = terms[k]!;
      const want: number[] = [];
      for (const [lo, hi] of ranges) {
        const [from, to] = this.blocksOf(p, k, lo, hi);
        for (let b = from; b < to; b++) if (!term.has(b)) want.push(b);
      }
      if (!want.length) continue;
      want.sort((a, b) => a - b);
      for (let i = 0; i < want.length; ) {
        let e = i + 1;
        while (e < want.length && want[e]! <= want[e - 1]! + 1) e++;
        // A run of neighbouring blocks (a block wanted twice sits beside itself) is one read.
        term.load(p.s.open?.(), want[i]!, want[e - 1]! + 1);
        i = e;
      }
    }
  }

  /** Scores the matches among ordinals [lo, hi] of `p` into the top hits and counts them (its blocks decoded). */
  evaluate(p: SegmentPlan, lo: number, hi: number): void {
    const seg = p.s.seg;
    hi = Math.min(hi, p.s.limit - 1);
    const terms = this.termsOf(p);
    const cursors = p.slots.map((_, k) => {
      const [from, to] = this.blocksOf(p, k, lo, hi);
      return new TermCursor(terms[k]!, seg, from, to);
    });
    const candidates = this.candidates(p, cursors, lo, hi);
    const f = this.filters;
    const timed = f.sinceMs !== undefined || f.untilMs !== undefined;
    const { tagSlots, required, negated, positiveSlots, slots } = p;
    const avg = this.plan.avgLength;
    const base = p.s.base;
    next: for (let c = 0; c < candidates.length; c++) {
      const d = candidates[c]!;
      if (f.role !== undefined && seg.roleAt(d) !== f.role) continue;
      if (timed) {
        const at = seg.createdAt(d);
        if (Number.isNaN(at) || (f.sinceMs !== undefined && at < f.sinceMs) || (f.untilMs !== undefined && at > f.untilMs)) continue;
      }
      for (let t = 0; t < tagSlots.length; t++) if (cursors[tagSlots[t]!]!.seek(d) < 0) continue next;
      for (let g = 0; g < required.length; g++) if (!satisfied(required[g]!, d, cursors)) continue next;
      for (let g = 0; g < negated.length; g++) if (satisfied(negated[g]!, d, cursors)) continue next;
      this.total++;
      const length = seg.weightedLengthOf(d);
      let score = 0;
      for (let t = 0; t < positiveSlots.length; t++) {
        const k = positiveSlots[t]!;
        const cur = cursors[k]!;
        const i = cur.seek(d);
        if (i >= 0) score += termScore(slots[k]!.idf, cur.wtfs[i]!, length, avg);
      }
      this.top.offer(score, base >= 0 ? base + d : base - d, p.si, d);
    }
  }

  /** Ordinals in [lo, hi] that may match, ascending: those of the required group with the fewest postings here. */
  private candidates(p: SegmentPlan, cursors: TermCursor[], lo: number, hi: number): Int32Array {
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
      for (const k of ks) lists.push(cursors[k]!.collect(lo, hi));
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

/** Does document `d` satisfy one of the group's items? */
function satisfied(g: PlanGroup, d: number, cursors: TermCursor[]): boolean {
  const items = g.items;
  for (let n = 0; n < items.length; n++) {
    const it = items[n]!;
    const ks = it.slots;
    if (!it.phrase) {
      for (let i = 0; i < ks.length; i++) if (cursors[ks[i]!]!.seek(d) >= 0) return true;
      continue;
    }
    let all = true;
    for (let i = 0; i < ks.length && all; i++) all = cursors[ks[i]!]!.seek(d) >= 0;
    if (all && phraseAt(it, cursors)) return true;
  }
  return false;
}

/** Do the phrase's terms sit at their offsets in the document every cursor of it stands on? */
function phraseAt(it: PlanGroup['items'][number], cursors: TermCursor[]): boolean {
  const ks = it.slots;
  const lead = cursors[ks[0]!]!;
  const { start, pos } = lead.term.positionsOf(lead.b);
  const k = lead.k;
  for (let q = start[k]!; q < start[k + 1]!; q++) {
    const p0 = pos[q]!;
    let all = true;
    for (let i = 1; i < ks.length && all; i++) {
      const c = cursors[ks[i]!]!;
      all = c.term.hasPosition(c.b, c.k, p0 + it.offsets[i]!);
    }
    if (all) return true;
  }
  return false;
}
