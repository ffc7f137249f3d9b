import { performance } from 'node:perf_hooks';
import type { SearchQuery } from '../../domain/search';
import { CancelledError } from '../../../../kernel/errors';
import { SegmentScorer } from './segment-scorer';
import { planQuery, type PlanItem, type QueryPlan, type SearchFilters, type SearchSegment, type SegmentPlan } from './search-plan';
import { SlotData } from './slot-data';
import { and, andNot, or } from './bitmap-words';
import { TopHits, type ScoredHit } from './top-hits';

export { MAX_PREFIX_TERMS, type SearchFilters, type SearchSegment } from './search-plan';
export { compareHits, type ScoredHit } from './top-hits';

export interface EvaluateOptions {
  /** Hits wanted (a page and one more, to know whether another follows). */
  capacity: number;
  /** Only hits ranked after this one (a cursor's last hit). */
  after?: { score: number; ord: number };
  signal?: AbortSignal;
  /** false: every match is scored, no chunk skipped by its bound (the reference the bounds are tested against). */
  prune?: boolean;
}

export interface EvaluateResult {
  /** The best hits after `after`, best first, at most `capacity`. */
  hits: ScoredHit[];
  /** Every match, counted exactly. */
  total: number;
  totalExact: true;
  /** Chunks of candidates scored, and only counted (their bound could not beat the page). */
  chunks: { scored: number; counted: number };
}

/** A search runs this long at most before letting the event loop serve others (checked between segments). */
const YIELD_MS = 20;

/**
 * Evaluates a parsed query over segments: the documents matching every positive group and no negated one, passing
 * the filters, each scored Σ idf × impact over the positive terms (PostgreSQL's score to the bit: idf over the live
 * documents searched, impact ts_rank's, domain/search/impact.ts), keeping only the
 * best `capacity`. Per segment, word-at-a-time over bitmaps (32 documents per operation): the candidates are the AND
 * of the groups' bitmaps (a group the OR of its items'), the tags' and the negated groups' complements; a phrase's
 * positions are checked only where its bigrams already meet; then every candidate is counted and scored from its
 * terms' codes in one loop. Every match is counted, so `total` is exact.
 */
export async function evaluateQuery(query: SearchQuery, filters: SearchFilters, segments: readonly SearchSegment[], opts: EvaluateOptions): Promise<EvaluateResult> {
  const plan = planQuery(query, filters, segments);
  const top = new TopHits(opts.capacity, opts.after);
  const run = new SegmentRun(plan, filters, top, opts);
  // Newest first: on ties (flat scores) the newest hits fill the page first and the older ones are turned away early.
  const order = [...plan.segments].sort((a, b) => b.s.base - a.s.base);
  let slice = performance.now();
  let total = 0;
  for (const p of order) {
    if (performance.now() - slice > YIELD_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
    if (opts.signal?.aborted) throw new CancelledError();
    total += run.evaluate(p);
  }
  return { hits: top.sorted(), total, totalExact: true, chunks: run.chunks() };
}

/** One search's reusable state: its slots' data and bitmaps, sized for the largest segment. */
class SegmentRun {
  private readonly data: SlotData[] = [];
  private cand = new Uint32Array(0);
  private group = new Uint32Array(0);
  private phrase = new Uint32Array(0);
  private readonly scorer: SegmentScorer;

  constructor(
    plan: QueryPlan,
    filters: SearchFilters,
    top: TopHits,
    opts: EvaluateOptions,
  ) {
    this.scorer = new SegmentScorer(filters, top, opts.prune !== false);
  }

  private fit(words: number): void {
    if (this.cand.length < words) {
      this.cand = new Uint32Array(words);
      this.group = new Uint32Array(words);
      this.phrase = new Uint32Array(words);
    }
  }

  chunks(): { scored: number; counted: number } {
    return { scored: this.scorer.scored, counted: this.scorer.counted };
  }

  /** Counts the matches of segment `p` and offers each to the top hits; returns the count. */
  evaluate(p: SegmentPlan): number {
    const seg = p.s.seg;
    const limit = p.s.limit;
    const W = Math.ceil(limit / 32);
    this.fit(W);
    const fd = p.s.open?.();
    while (this.data.length < p.slots.length) this.data.push(new SlotData());
    const data = this.data;
    for (let k = 0; k < p.slots.length; k++) data[k]!.load(seg, fd, p.slots[k]!.idx, p.slots[k]!.positive);
    const C = this.cand;
    C.fill(0xffffffff, 0, W);
    if (limit & 31) C[W - 1] = (1 << (limit & 31)) - 1;
    // Documents a rewrite of the graph removed match nothing.
    if (p.s.overlay?.any) andNot(C, p.s.overlay.deleted, W);
    // 1. Groups needing no positions, the tags, the negated words; 2. then the phrases to check, on what is left.
    for (const g of p.required) if (!g.items.some((it) => it.verify)) this.andGroup(g.items, W, data);
    for (const k of p.tagSlots) and(C, data[k]!.bm, W);
    for (const g of p.negated) for (const it of g.items) if (!it.verify) this.andNotItem(it, W, data);
    for (const g of p.required) if (g.items.some((it) => it.verify)) this.andGroup(g.items, W, data);
    for (const g of p.negated) for (const it of g.items) if (it.verify) this.andNotItem(it, W, data);
    return this.scorer.score(p, C, W, data);
  }

  /** C &= OR of the items' documents. */
  private andGroup(items: readonly PlanItem[], W: number, data: SlotData[]): void {
    const G = this.group;
    G.fill(0, 0, W);
    for (const it of items) {
      if (!it.phrase) {
        for (const k of it.slots) or(G, data[k]!.bm, W);
        continue;
      }
      const P = this.phraseMatches(it, W, data);
      or(G, P, W);
    }
    and(this.cand, G, W);
  }

  /** C &= ~(the item's documents among C). */
  private andNotItem(it: PlanItem, W: number, data: SlotData[]): void {
    const C = this.cand;
    if (!it.phrase) {
      for (const k of it.slots) andNot(C, data[k]!.bm, W);
      return;
    }
    andNot(C, this.phraseMatches(it, W, data), W);
  }

  /** The candidates holding the phrase: C AND its terms and bigrams, positions checked where needed. */
  private phraseMatches(it: PlanItem, W: number, data: SlotData[]): Uint32Array {
    const P = this.phrase;
    P.set(this.cand.subarray(0, W));
    for (const k of it.pairs) and(P, data[k]!.bm, W);
    for (const k of it.slots) and(P, data[k]!.bm, W);
    if (!it.verify) return P;
    for (let w = 0; w < W; w++) {
      let x = P[w]!;
      while (x !== 0) {
        const t = x & -x;
        x ^= t;
        if (!phraseAt(it, (w << 5) + 31 - Math.clz32(t), data)) P[w] = (P[w]! & ~t) >>> 0;
      }
    }
    return P;
  }
}

/** Do the phrase's terms sit at their offsets in document `d` (which holds all of them)? */
function phraseAt(it: PlanItem, d: number, data: SlotData[]): boolean {
  const ks = it.slots;
  const lead = data[ks[0]!]!.positionsOf(d);
  const others = ks.map((k) => data[k]!.positionsOf(d));
  for (let q = 0; q < lead.length; q++) {
    const p0 = lead[q]!;
    let all = true;
    for (let i = 1; i < ks.length && all; i++) all = includes(others[i]!, p0 + it.offsets[i]!);
    if (all) return true;
  }
  return false;
}

/** Binary search in ascending positions. */
function includes(pos: Int32Array, p: number): boolean {
  let a = 0;
  let b = pos.length;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (pos[m]! < p) a = m + 1;
    else b = m;
  }
  return a < pos.length && pos[a] === p;
}
