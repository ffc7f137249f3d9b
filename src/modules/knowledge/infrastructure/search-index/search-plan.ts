import type { SearchQuery } from '../../domain/search';
import { idf } from '../../domain/search/idf';
import type { KnowledgeRole } from '../../domain/knowledge-node';
import type { LoadedSegment } from './segment-reader';
import { TAG_TERM_PREFIX, bigramTerm } from './segment-format';
import { VarintReader } from './varint';
import { countBelow } from './dense-term';
import { SlotData } from './slot-data';
import type { SegmentOverlay } from './segment-overlay';

/** A prefix matches at most this many terms per segment (the first in order); docs/knowledge-graph.md, "Search", says so. */
export const MAX_PREFIX_TERMS = 1000;

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
  /** What rewrites of the graph did to it (documents deleted, lines moved): deleted documents are in no statistic and no match. */
  overlay?: SegmentOverlay;
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

/**
 * Something a document contains: any of `slots` (a word, a prefix's terms), or all of them as a phrase — whose
 * documents hold every bigram of its neighbouring terms (`pairs`), and whose positions are checked (`verify`) unless
 * it is two neighbouring terms (then its bigram's documents are exactly its matches).
 */
export interface PlanItem {
  phrase: boolean;
  slots: number[];
  offsets: readonly number[];
  pairs: number[];
  verify: boolean;
}

export interface PlanGroup {
  items: PlanItem[];
}

/** One segment's part of a search: the query's terms resolved to the segment's. */
export interface SegmentPlan {
  si: number;
  s: SearchSegment;
  slots: Slot[];
  required: PlanGroup[];
  negated: PlanGroup[];
  tagSlots: number[];
  /** The scored slots in the order their contributions are added: their terms' code point order (see planSegment). */
  positiveSlots: number[];
}

export interface QueryPlan {
  segments: SegmentPlan[];
}

/** Documents of term `idx` with an ordinal below `limit` (a dense term's bitmap counted, a sparse block cut by it decoded). */
function dfBelow(s: SearchSegment, idx: number): number {
  const seg = s.seg;
  const o = s.overlay?.any ? s.overlay : undefined;
  if (s.limit >= seg.docCount && !o) return seg.df(idx);
  if (seg.isDense(idx)) {
    const bm = new SlotData().load(seg, s.open?.(), idx, false).bm;
    return countBelow(bm, s.limit) - (o ? o.deletedIn(bm, s.limit) : 0);
  }
  // Sparse: whole blocks below the limit counted, a block decoded only when the limit cuts it or it may hold a
  // deleted document (the deleted ordinals walked beside the blocks).
  const del = o?.deletedOrds;
  let k = 0;
  let n = 0;
  for (let b = seg.blockFrom(idx); b < seg.blockTo(idx); b++) {
    const last = seg.blockLast(b);
    const cut = last >= s.limit;
    const first = b === seg.blockFrom(idx) ? -1 : seg.blockLast(b - 1);
    while (del && k < del.length && del[k]! <= first) k++;
    const holds = del !== undefined && k < del.length && del[k]! <= last;
    if (!cut && !holds) {
      n += seg.blockSize(idx, b);
      continue;
    }
    const [from, to] = seg.docRange(idx, b, b + 1);
    const size = seg.blockSize(idx, b);
    const ords = new Int32Array(size);
    seg.decodeDocs(idx, b, new VarintReader(seg.readSync(s.open?.(), from, to)), ords, new Float64Array(size), 0);
    for (const d of ords) if (d < s.limit && !(o && o.isDeleted(d))) n++;
    if (cut) break;
  }
  return n;
}

/**
 * A prefix's terms in a segment, the first MAX_PREFIX_TERMS in order — of its live documents: a term only documents a
 * rewrite deleted hold is not in the segment a fresh index builds (it would be scored for deleted nodes, and count
 * against the cap).
 */
function prefixTerms(s: SearchSegment, prefix: string): string[] {
  const seg = s.seg;
  const o = s.overlay?.any ? s.overlay : undefined;
  if (!o) return seg.termsWithPrefix(prefix, MAX_PREFIX_TERMS);
  const whole = { ...s, limit: seg.docCount };
  const out: string[] = [];
  for (const t of seg.termsWithPrefix(prefix, Infinity)) {
    if (out.length >= MAX_PREFIX_TERMS) break;
    const idx = seg.termIndex(t);
    if (seg.df(idx) > o.deletedOrds.length || dfBelow(whole, idx) > 0) out.push(t);
  }
  return out;
}

/** Resolves a query over the segments: terms and statistics over every document searched. */
export function planQuery(query: SearchQuery, filters: SearchFilters, segments: readonly SearchSegment[]): QueryPlan {
  // 1. Which index terms each item means, per segment (prefixes expand).
  const termsOf = (s: SearchSegment, item: SearchQuery['groups'][number]['items'][number]): string[] =>
    item.kind === 'prefix' ? prefixTerms(s, item.term) : item.kind === 'word' ? [item.term] : item.terms;
  // 2. Statistics over the live documents searched (as PostgreSQL's: a search with includeDeleted scores the deleted
  // nodes with the live nodes' idfs; base < 0 is the deleted nodes' segment).
  let docs = 0;
  // Deleted by a rewrite (a segment's marks): as if never indexed.
  for (const s of segments) if (s.base >= 0) docs += s.limit - (s.overlay?.any ? s.overlay.deletedBelow(s.limit) : 0);
  // The scored terms: a word's (and a phrase's) whether found or not, a prefix's those of the live documents — the
  // terms PostgreSQL's statistics list (a term only deleted nodes hold adds nothing to their scores there either).
  const positive = new Set<string>();
  for (const g of query.groups) {
    if (g.negated) continue;
    for (const item of g.items) {
      if (item.kind !== 'prefix') for (const t of item.kind === 'word' ? [item.term] : item.terms) positive.add(t);
      else for (const s of segments) if (s.base >= 0) for (const t of termsOf(s, item)) positive.add(t);
    }
  }
  const df = new Map<string, number>();
  for (let si = 0; si < segments.length; si++) {
    if (segments[si]!.base < 0) continue;
    for (const t of positive) {
      const idx = segments[si]!.seg.termIndex(t);
      if (idx >= 0) df.set(t, (df.get(t) ?? 0) + dfBelow(segments[si]!, idx));
    }
  }
  const idfs = new Map([...positive].map((t) => [t, idf(docs, df.get(t) ?? 0)]));
  // 3. Per segment: slots and groups.
  const plans: SegmentPlan[] = [];
  for (let si = 0; si < segments.length; si++) {
    const plan = planSegment(si, segments[si]!, query, filters, termsOf, idfs);
    if (plan) plans.push(plan);
  }
  return { segments: plans };
}

function planSegment(
  si: number,
  s: SearchSegment,
  query: SearchQuery,
  filters: SearchFilters,
  termsOf: (s: SearchSegment, item: SearchQuery['groups'][number]['items'][number]) => string[],
  idfs: Map<string, number>,
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
      const terms = termsOf(s, item);
      if (item.kind !== 'phrase') {
        // A word or prefix needs one of its terms.
        const present = terms.map((t) => slot(t, !g.negated, false)).filter((k): k is number => k !== undefined);
        if (present.length) items.push({ phrase: false, slots: present, offsets: [], pairs: [], verify: false });
        continue;
      }
      // A phrase needs all of its terms, and the bigram of each two neighbouring ones that are both dense here (the
      // segment has every such bigram: segment-format.ts); two such neighbours are exactly their bigram's documents.
      const o = item.offsets;
      const idxs = terms.map((t) => seg.termIndex(t));
      if (idxs.some((i) => i < 0)) {
        // Nowhere here; its terms present are still scored where another item matches.
        for (const t of terms) slot(t, !g.negated, false);
        continue;
      }
      const paired: boolean[] = [];
      for (let i = 1; i < terms.length; i++) paired.push(o[i] === o[i - 1]! + 1 && seg.isDense(idxs[i - 1]!) && seg.isDense(idxs[i]!));
      const verify = !(terms.length === 2 && paired[0]);
      const ks = terms.map((t) => slot(t, !g.negated, verify)!);
      const pairs: Array<number | undefined> = [];
      for (let i = 1; i < terms.length; i++) if (paired[i - 1]) pairs.push(slot(bigramTerm(terms[i - 1]!, terms[i]!), false, false));
      // A bigram the segment lacks: the phrase is nowhere here.
      if (pairs.some((k) => k === undefined)) continue;
      items.push({ phrase: true, slots: ks, offsets: o, pairs: pairs as number[], verify });
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
  // PostgreSQL adds a node's Σ idf × impact in its statistics' term order (ORDER BY term, COLLATE "C": UTF-8 byte
  // order, which is code point order) from 0, in float8: so do these, and the two stores' scores are equal to the bit.
  const terms = seg.header.terms;
  const positiveSlots = slots.flatMap((sl, k) => (sl.positive ? [k] : [])).sort((a, b) => codePointOrder(terms[slots[a]!.idx]!, terms[slots[b]!.idx]!));
  return { si, s, slots, required, negated, tagSlots, positiveSlots };
}

/** Strings in code point order (UTF-8 byte order; JavaScript's < compares UTF-16 units, which differs past U+D7FF). */
export function codePointOrder(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // A surrogate (a code point past U+FFFF) sorts after every other unit; else units compare as code points.
    const sx = x >= 0xd800 && x <= 0xdfff;
    const sy = y >= 0xd800 && y <= 0xdfff;
    return sx === sy ? x - y : sx ? 1 : -1;
  }
  return a.length - b.length;
}
