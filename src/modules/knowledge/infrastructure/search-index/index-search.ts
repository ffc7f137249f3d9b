import type * as fs from 'node:fs/promises';
import { FIELD_WEIGHTS, idf, termScore, type QueryItem, type SearchQuery } from '../../domain/search';
import type { KnowledgeRole } from '../../domain/knowledge-node';
import { EMPTY_POSTINGS, type LoadedSegment, type Postings } from './segment-reader';
import { TAG_TERM_PREFIX } from './segment-format';

/** A prefix matches at most this many terms per segment (the first in order); docs/knowledge.md says so. */
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
  handle?: fs.FileHandle;
}

export interface ScoredHit {
  score: number;
  /** Project-wide ordinal (graph order; deleted nodes negative), the tie-break: newer first. */
  ord: number;
  seg: number;
  local: number;
}

export interface EvaluateResult {
  /** Every match, unordered. */
  hits: ScoredHit[];
  /** Index terms that matched the query (prefixes expanded), for snippets. */
  matchedTerms: string[];
}

function union(lists: Int32Array[]): Int32Array {
  if (lists.length === 0) return new Int32Array(0);
  if (lists.length === 1) return lists[0]!;
  const all = new Int32Array(lists.reduce((n, l) => n + l.length, 0));
  let at = 0;
  for (const l of lists) {
    all.set(l, at);
    at += l.length;
  }
  all.sort();
  let w = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[w++] = all[i]!;
  return all.subarray(0, w);
}

function intersect(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(Math.min(a.length, b.length));
  let i = 0;
  let j = 0;
  let w = 0;
  while (i < a.length && j < b.length) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      out[w++] = a[i]!;
      i++;
      j++;
    }
  }
  return out.subarray(0, w);
}

function subtract(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(a.length);
  let j = 0;
  let w = 0;
  for (let i = 0; i < a.length; i++) {
    while (j < b.length && b[j]! < a[i]!) j++;
    if (j >= b.length || b[j] !== a[i]) out[w++] = a[i]!;
  }
  return out.subarray(0, w);
}

function indexOfOrd(p: Postings, ord: number): number {
  let lo = 0;
  let hi = p.ords.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = p.ords[mid]!;
    if (v === ord) return mid;
    if (v < ord) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Documents where terms[i] sits at p + offsets[i] for some p. */
function phraseOrds(lists: Postings[], offsets: readonly number[]): Int32Array {
  let cand = lists[0]!.ords;
  for (let k = 1; k < lists.length; k++) cand = intersect(cand, lists[k]!.ords);
  const out: number[] = [];
  for (const ord of cand) {
    const first = lists[0]!;
    const i0 = indexOfOrd(first, ord);
    const sets = lists.map((l) => {
      const i = indexOfOrd(l, ord);
      return new Set(l.pos.subarray(l.posStart[i]!, l.posStart[i + 1]!));
    });
    for (let q = first.posStart[i0]!; q < first.posStart[i0 + 1]!; q++) {
      const p = first.pos[q]!;
      if (sets.every((s, k) => s.has(p + offsets[k]!))) {
        out.push(ord);
        break;
      }
    }
  }
  return Int32Array.from(out);
}

/** Per-segment postings of the terms a query needs, read once per search. */
class TermCache {
  private readonly map = new Map<string, Postings>();
  constructor(private readonly s: SearchSegment) {}
  async get(term: string): Promise<Postings> {
    let p = this.map.get(term);
    if (!p) {
      const idx = this.s.seg.termIndex(term);
      p = idx < 0 ? EMPTY_POSTINGS : await this.s.seg.postings(this.s.handle, idx);
      this.map.set(term, p);
    }
    return p;
  }
  entries(): IterableIterator<[string, Postings]> {
    return this.map.entries();
  }
}

/**
 * Evaluates a parsed query over segments: the documents matching every positive group and no negated one, passing
 * the filters, each scored BM25F over the positive terms (statistics over every document searched).
 */
export async function evaluateQuery(query: SearchQuery, filters: SearchFilters, segments: readonly SearchSegment[]): Promise<EvaluateResult> {
  const caches = segments.map((s) => new TermCache(s));
  // 1. Which index terms each item means, per segment (prefixes expand), and their postings.
  const expansions = new Map<QueryItem, string[][]>();
  for (const g of query.groups) {
    for (const item of g.items) {
      expansions.set(
        item,
        segments.map((s) => (item.kind === 'prefix' ? s.seg.termsWithPrefix(item.term, MAX_PREFIX_TERMS) : item.kind === 'word' ? [item.term] : item.terms)),
      );
    }
  }
  const positive = new Set<string>();
  for (const g of query.groups) if (!g.negated) for (const item of g.items) for (const list of expansions.get(item)!) for (const t of list) positive.add(t);
  // 2. Statistics over the documents searched.
  let docs = 0;
  let lengthSum = 0;
  for (const s of segments) {
    docs += s.limit;
    if (s.limit === s.seg.docCount) lengthSum += s.seg.weightedLength;
    else for (let i = 0; i < s.limit; i++) lengthSum += s.seg.weightedLengthOf(i);
  }
  const avgLength = docs ? lengthSum / docs : 0;
  const df = new Map<string, number>();
  for (let si = 0; si < segments.length; si++) {
    for (const t of positive) {
      const p = await caches[si]!.get(t);
      const limit = segments[si]!.limit;
      let n = p.ords.length;
      if (limit < segments[si]!.seg.docCount) n = p.ords.filter((o) => o < limit).length;
      df.set(t, (df.get(t) ?? 0) + n);
    }
  }
  const idfs = new Map([...positive].map((t) => [t, idf(docs, df.get(t) ?? 0)]));
  const matched = new Set<string>();
  const hits: ScoredHit[] = [];
  // 3. Per segment: the matching documents, filtered, scored.
  for (let si = 0; si < segments.length; si++) {
    const s = segments[si]!;
    const cache = caches[si]!;
    const groupOrds = async (items: readonly QueryItem[]): Promise<Int32Array> => {
      const lists: Int32Array[] = [];
      for (const item of items) {
        const terms = expansions.get(item)![si]!;
        if (item.kind === 'phrase') {
          const ps = await Promise.all(terms.map((t) => cache.get(t)));
          lists.push(phraseOrds(ps, item.offsets));
        } else for (const t of terms) lists.push((await cache.get(t)).ords);
      }
      return union(lists);
    };
    let cand: Int32Array | undefined;
    for (const g of query.groups.filter((x) => !x.negated)) {
      const ords = await groupOrds(g.items);
      cand = cand ? intersect(cand, ords) : ords;
      if (!cand.length) break;
    }
    if (!cand || !cand.length) continue;
    for (const g of query.groups.filter((x) => x.negated)) cand = subtract(cand, await groupOrds(g.items));
    for (const tag of filters.tags ?? []) cand = intersect(cand, (await cache.get(TAG_TERM_PREFIX + tag)).ords);
    const keepBuf = new Int32Array(cand.length);
    let nk = 0;
    for (const ord of cand) {
      if (ord >= s.limit) break;
      if (filters.role !== undefined && s.seg.roleAt(ord) !== filters.role) continue;
      if (filters.sinceMs !== undefined || filters.untilMs !== undefined) {
        const at = s.seg.createdAt(ord);
        if (Number.isNaN(at) || (filters.sinceMs !== undefined && at < filters.sinceMs) || (filters.untilMs !== undefined && at > filters.untilMs)) continue;
      }
      keepBuf[nk++] = ord;
    }
    const keep = keepBuf.subarray(0, nk);
    if (!keep.length) continue;
    const scores = new Float64Array(keep.length);
    for (const [term, p] of cache.entries()) {
      if (!positive.has(term)) continue;
      const termIdf = idfs.get(term)!;
      let j = 0;
      let any = false;
      for (let k = 0; k < keep.length; k++) {
        const ord = keep[k]!;
        while (j < p.ords.length && p.ords[j]! < ord) j++;
        if (j >= p.ords.length) break;
        if (p.ords[j] !== ord) continue;
        any = true;
        const thoughtEnd = s.seg.thoughtEndAt(ord);
        const tagsEnd = s.seg.tagsEndAt(ord);
        let wtf = 0;
        for (let q = p.posStart[j]!; q < p.posStart[j + 1]!; q++) {
          const pos = p.pos[q]!;
          wtf += pos < thoughtEnd ? FIELD_WEIGHTS.thought : pos < tagsEnd ? FIELD_WEIGHTS.tags : FIELD_WEIGHTS.artifacts;
        }
        scores[k]! += termScore(termIdf, wtf, s.seg.weightedLengthOf(ord), avgLength);
      }
      if (any) matched.add(term);
    }
    for (let k = 0; k < keep.length; k++) {
      const local = keep[k]!;
      hits.push({ score: scores[k]!, ord: s.base >= 0 ? s.base + local : s.base - local, seg: si, local });
    }
  }
  return { hits, matchedTerms: [...matched] };
}

/** Higher score first; on a tie the newer node (higher ordinal) first. */
export function compareHits(a: { score: number; ord: number }, b: { score: number; ord: number }): number {
  return b.score - a.score || b.ord - a.ord;
}

/** The `count` best hits after `after` (a cursor's last hit), in order, without sorting them all. */
export function topHits(hits: readonly ScoredHit[], count: number, after?: { score: number; ord: number }): ScoredHit[] {
  const heap: ScoredHit[] = [];
  // A max-heap on "worse": the root is the worst kept hit.
  const worse = (a: ScoredHit, b: ScoredHit) => compareHits(a, b) > 0;
  const up = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!worse(heap[i]!, heap[p]!)) break;
      [heap[i], heap[p]] = [heap[p]!, heap[i]!];
      i = p;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && worse(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && worse(heap[r]!, heap[m]!)) m = r;
      if (m === i) break;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  for (const h of hits) {
    if (after && compareHits(h, after) <= 0) continue;
    if (heap.length < count) {
      heap.push(h);
      up(heap.length - 1);
    } else if (compareHits(h, heap[0]!) < 0) {
      heap[0] = h;
      down(0);
    }
  }
  return heap.sort(compareHits);
}
