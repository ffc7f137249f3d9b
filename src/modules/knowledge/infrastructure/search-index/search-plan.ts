import type { SearchQuery } from '../../domain/search';
import { idf } from '../../domain/search/bm25';
import type { KnowledgeRole } from '../../domain/knowledge-node';
import type { LoadedSegment } from './segment-reader';
import { TAG_TERM_PREFIX, weightedTf } from './segment-format';
import { VarintReader } from './varint';

/** A prefix matches at most this many terms per segment (the first in order); docs/knowledge.md says so. */
export const MAX_PREFIX_TERMS = 1000;
/** With more scored terms than this in a segment, the segment is one range with one bound (a wide prefix). */
const MAX_FINE_SLOTS = 16;
/** Bounds are raised by this much: float rounding must never make a bound fall below a score it bounds. */
const BOUND_SLACK = 1 + 1e-9;

export interface SearchFilters {
  role?: KnowledgeRole;
  tags?: readonly string[];
  sinceMs?: number;
  untilMs?: number;
}

/** A segment of the search with where its documents start in the project's order (deleted nodes: negative). */
export interface SearchSegment {
  seg: LoadedSegment;
  base: number;
  /** Documents of this segment taken into account (the cursor's watermark may cut a segment). */
  limit: number;
  /** The segment file's descriptor, opened on first use (none for a segment held in memory). */
  open?: () => number;
}

/** A term a search reads in one segment. */
export interface Slot {
  idx: number;
  /** Scored (a positive term), with this idf. */
  positive: boolean;
  idf: number;
  /** A phrase needs its positions. */
  positions: boolean;
}

/** Something a document contains: any of `slots` (a word, a prefix's terms), or all of them as a phrase. */
export interface PlanItem {
  phrase: boolean;
  slots: number[];
  offsets: readonly number[];
}

export interface PlanGroup {
  items: PlanItem[];
}

/**
 * One segment's part of a search: the query's terms resolved to the segment's, and the ranges of documents
 * (intervals cut at every block end of a scored term) that may match, each with the highest score a document in it
 * can reach (Σ of its scored terms' block bounds).
 */
export interface SegmentPlan {
  si: number;
  s: SearchSegment;
  slots: Slot[];
  required: PlanGroup[];
  negated: PlanGroup[];
  tagSlots: number[];
  positiveSlots: number[];
  lo: Int32Array;
  hi: Int32Array;
  ub: Float64Array;
  intervals: number;
}

export interface QueryPlan {
  segments: SegmentPlan[];
  avgLength: number;
  /** Matches of a one-word query without filters: its document frequency (undefined: they must be counted). */
  knownTotal: number | undefined;
}

/** Documents of term `idx` with an ordinal below `limit` (a block cut by the limit is read and decoded). */
function dfBelow(s: SearchSegment, idx: number): number {
  const seg = s.seg;
  if (s.limit >= seg.docCount) return seg.df(idx);
  let n = 0;
  for (let b = seg.blockFrom(idx); b < seg.blockTo(idx); b++) {
    if (seg.blockLast(b) < s.limit) {
      n += seg.blockSize(idx, b);
      continue;
    }
    const [from, to] = seg.docRange(idx, b, b + 1);
    const size = seg.blockSize(idx, b);
    const ords = new Int32Array(size);
    seg.decodeDocs(idx, b, new VarintReader(seg.readSync(s.open?.(), from, to)), ords, new Float64Array(size), 0);
    for (const o of ords) if (o < s.limit) n++;
    break;
  }
  return n;
}

/** Resolves a query over the segments: terms, statistics over every document searched, intervals and their bounds. */
export function planQuery(query: SearchQuery, filters: SearchFilters, segments: readonly SearchSegment[]): QueryPlan {
  // 1. Which index terms each item means, per segment (prefixes expand).
  const termsOf = (seg: LoadedSegment, item: SearchQuery['groups'][number]['items'][number]): string[] =>
    item.kind === 'prefix' ? seg.termsWithPrefix(item.term, MAX_PREFIX_TERMS) : item.kind === 'word' ? [item.term] : item.terms;
  // 2. Statistics over the documents searched.
  let docs = 0;
  const words = { thought: 0, tags: 0, artifacts: 0 };
  for (const s of segments) {
    docs += s.limit;
    const w = s.limit === s.seg.docCount ? s.seg.words : s.seg.wordsBelow(s.limit);
    words.thought += w.thought;
    words.tags += w.tags;
    words.artifacts += w.artifacts;
  }
  const avgLength = docs ? weightedTf(words.thought, words.tags, words.artifacts) / docs : 0;
  const positive = new Set<string>();
  for (const g of query.groups) if (!g.negated) for (const item of g.items) for (const s of segments) for (const t of termsOf(s.seg, item)) positive.add(t);
  const df = new Map<string, number>();
  for (let si = 0; si < segments.length; si++) {
    for (const t of positive) {
      const idx = segments[si]!.seg.termIndex(t);
      if (idx >= 0) df.set(t, (df.get(t) ?? 0) + dfBelow(segments[si]!, idx));
    }
  }
  const idfs = new Map([...positive].map((t) => [t, idf(docs, df.get(t) ?? 0)]));
  const only = query.groups.length === 1 && query.groups[0]!.items.length === 1 ? query.groups[0]!.items[0]! : undefined;
  const unfiltered = !filters.tags?.length && filters.role === undefined && filters.sinceMs === undefined && filters.untilMs === undefined;
  const knownTotal = only?.kind === 'word' && unfiltered ? (df.get(only.term) ?? 0) : undefined;
  // 3. Per segment: slots, groups, intervals.
  const plans: SegmentPlan[] = [];
  for (let si = 0; si < segments.length; si++) {
    const plan = planSegment(si, segments[si]!, query, filters, termsOf, idfs, avgLength);
    if (plan) plans.push(plan);
  }
  return { segments: plans, avgLength, knownTotal };
}

function planSegment(
  si: number,
  s: SearchSegment,
  query: SearchQuery,
  filters: SearchFilters,
  termsOf: (seg: LoadedSegment, item: SearchQuery['groups'][number]['items'][number]) => string[],
  idfs: Map<string, number>,
  avgLength: number,
): SegmentPlan | undefined {
  const seg = s.seg;
  if (s.limit <= 0) return undefined;
  const slots: Slot[] = [];
  const slotOf = new Map<number, number>();
  const slot = (term: string, positive: boolean, positions: boolean): number | undefined => {
    const idx = seg.termIndex(term);
    if (idx < 0) return undefined;
    let k = slotOf.get(idx);
    if (k === undefined) {
      slotOf.set(idx, (k = slots.length));
      slots.push({ idx, positive: false, idf: 0, positions: false });
    }
    const sl = slots[k]!;
    if (positive) (sl.positive = true), (sl.idf = idfs.get(term) ?? 0);
    if (positions) sl.positions = true;
    return k;
  };
  const required: PlanGroup[] = [];
  const negated: PlanGroup[] = [];
  for (const g of query.groups) {
    const items: PlanItem[] = [];
    for (const item of g.items) {
      const terms = termsOf(seg, item);
      const phrase = item.kind === 'phrase';
      const ks = terms.map((t) => slot(t, !g.negated, phrase));
      // A phrase with a term the segment lacks matches nothing here; a word or prefix needs one of its terms.
      if (phrase && ks.some((k) => k === undefined)) continue;
      const present = ks.filter((k): k is number => k !== undefined);
      if (present.length) items.push({ phrase, slots: present, offsets: item.kind === 'phrase' ? item.offsets : [] });
    }
    if (g.negated) {
      if (items.length) negated.push({ items });
    } else {
      if (!items.length) return undefined;
      required.push({ items });
    }
  }
  const tagSlots: number[] = [];
  for (const tag of filters.tags ?? []) {
    const k = slot(TAG_TERM_PREFIX + tag, false, false);
    if (k === undefined) return undefined;
    tagSlots.push(k);
  }
  const positiveSlots = slots.flatMap((sl, k) => (sl.positive ? [k] : []));
  const plan: SegmentPlan = { si, s, slots, required, negated, tagSlots, positiveSlots, lo: new Int32Array(0), hi: new Int32Array(0), ub: new Float64Array(0), intervals: 0 };
  cutIntervals(plan, avgLength);
  return plan.intervals ? plan : undefined;
}

/** Cuts the segment into intervals at every block end of its scored terms, keeping those that may match. */
function cutIntervals(plan: SegmentPlan, avgLength: number): void {
  const seg = plan.s.seg;
  const limit = plan.s.limit;
  const pos = plan.positiveSlots.map((k) => plan.slots[k]!);
  let ends: Int32Array;
  if (pos.length > MAX_FINE_SLOTS) ends = Int32Array.of(limit - 1);
  else {
    let n = 0;
    for (const sl of pos) n += seg.blockTo(sl.idx) - seg.blockFrom(sl.idx);
    const all = new Int32Array(n + 1);
    let w = 0;
    for (const sl of pos) for (let b = seg.blockFrom(sl.idx); b < seg.blockTo(sl.idx); b++) all[w++] = Math.min(seg.blockLast(b), limit - 1);
    all[w++] = limit - 1;
    all.sort();
    let u = 0;
    for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[u - 1]) all[u++] = all[i]!;
    ends = all.subarray(0, u);
  }
  const lo = new Int32Array(ends.length);
  const hi = new Int32Array(ends.length);
  const ub = new Float64Array(ends.length);
  const ptr = pos.map((sl) => seg.blockFrom(sl.idx));
  const present = new Uint8Array(plan.slots.length);
  let kept = 0;
  let prev = -1;
  for (let j = 0; j < ends.length; j++) {
    const l = prev + 1;
    const h = ends[j]!;
    prev = h;
    let bound = 0;
    for (let t = 0; t < pos.length; t++) {
      const sl = pos[t]!;
      const to = seg.blockTo(sl.idx);
      if (pos.length > MAX_FINE_SLOTS) {
        let best = 0;
        for (let b = seg.blockFrom(sl.idx); b < to; b++) best = Math.max(best, seg.blockBound(b, sl.idf, avgLength));
        bound += best;
        present[plan.positiveSlots[t]!] = 1;
        continue;
      }
      while (ptr[t]! < to && seg.blockLast(ptr[t]!) < h) ptr[t]!++;
      // The block covering [l, h]: its first ordinal is after the previous block's last, which is an interval end ≤ l - 1.
      const covers = ptr[t]! < to && (ptr[t] === seg.blockFrom(sl.idx) || seg.blockLast(ptr[t]! - 1) < l);
      present[plan.positiveSlots[t]!] = covers ? 1 : 0;
      if (covers) bound += seg.blockBound(ptr[t]!, sl.idf, avgLength);
    }
    if (!feasible(plan, present)) continue;
    let tagged = true;
    for (let t = 0; t < plan.tagSlots.length && tagged; t++) tagged = overlaps(seg, plan.slots[plan.tagSlots[t]!]!.idx, l, h);
    if (!tagged) continue;
    lo[kept] = l;
    hi[kept] = h;
    ub[kept] = bound * BOUND_SLACK;
    kept++;
  }
  plan.lo = lo.subarray(0, kept);
  plan.hi = hi.subarray(0, kept);
  plan.ub = ub.subarray(0, kept);
  plan.intervals = kept;
}

/** Can every required group be met by the terms present (a phrase needs all of its terms, a word one)? */
function feasible(plan: SegmentPlan, present: Uint8Array): boolean {
  for (let g = 0; g < plan.required.length; g++) {
    const items = plan.required[g]!.items;
    let met = false;
    for (let n = 0; n < items.length && !met; n++) {
      const { phrase, slots } = items[n]!;
      met = phrase;
      for (let i = 0; i < slots.length; i++) {
        if (phrase && !present[slots[i]!]) met = false;
        if (!phrase && present[slots[i]!]) met = true;
      }
    }
    if (!met) return false;
  }
  return true;
}

/** The first block of term `idx` whose last ordinal is ≥ `ord` (blockTo when none). */
export function firstBlockFrom(seg: LoadedSegment, idx: number, ord: number): number {
  let a = seg.blockFrom(idx);
  let b = seg.blockTo(idx);
  while (a < b) {
    const m = (a + b) >>> 1;
    if (seg.blockLast(m) < ord) a = m + 1;
    else b = m;
  }
  return a;
}

/** Does a block of term `idx` overlap ordinals [lo, hi]? */
export function overlaps(seg: LoadedSegment, idx: number, lo: number, hi: number): boolean {
  const b = firstBlockFrom(seg, idx, lo);
  if (b >= seg.blockTo(idx)) return false;
  return b === seg.blockFrom(idx) || seg.blockLast(b - 1) < hi;
}
