import { bm25Norm } from '../../domain/search/bm25';
import { ChunkBounds, contribution } from './chunk-bounds';
import { popcount } from './dense-term';
import { CHUNK_DOCS, roleCode } from './segment-format';
import type { LoadedSegment } from './segment-reader';
import type { SearchFilters, SegmentPlan } from './search-plan';
import type { SlotData } from './slot-data';
import type { TopHits } from './top-hits';

/** Bitmap words per chunk. */
const WORDS_PER_CHUNK = CHUNK_DOCS / 32;

/**
 * Counts and scores one segment's matches (a bitmap of candidates) into the search's top hits: the role and time
 * filters first (per document), then the matches newest first, chunk by chunk, a chunk whose bound (chunk-bounds.ts)
 * cannot beat the page's worst hit — or only ties it while older — only counted. A dense term's contribution is a
 * function of (its code, the node's length class): a score table computes each pair met once (termScore's
 * arithmetic exactly, so rankings are bit for bit the definition's) and looks it up after.
 */
export class SegmentScorer {
  private norms = new Float64Array(0);
  private readonly tables: Float64Array[] = [];
  private readonly bounds = new ChunkBounds();
  private readonly role: number;
  private readonly timed: boolean;
  /** Chunks holding candidates scored, and only counted. */
  scored = 0;
  counted = 0;

  constructor(
    private readonly avgLength: number,
    private readonly filters: SearchFilters,
    private readonly top: TopHits,
    private readonly prune: boolean,
  ) {
    this.role = filters.role !== undefined ? roleCode(filters.role) : -1;
    this.timed = filters.sinceMs !== undefined || filters.untilMs !== undefined;
  }

  /** Scores the candidates of `C` (W words) of segment `p`, its terms in `data`; returns how many match. */
  score(p: SegmentPlan, C: Uint32Array, W: number, data: readonly SlotData[]): number {
    const seg = p.s.seg;
    const count = this.filter(seg, C, W);
    if (count === 0) return 0;
    const lengths = seg.classLengths;
    const nc = lengths.length;
    if (this.norms.length < nc) this.norms = new Float64Array(nc);
    const norms = this.norms;
    for (let c = 0; c < nc; c++) norms[c] = bm25Norm(lengths[c]!, this.avgLength);
    const terms = p.positiveSlots.map((k) => data[k]!);
    const idfs = Float64Array.from(p.positiveSlots, (k) => p.slots[k]!.idf);
    const top = this.top;
    const base = p.s.base;
    // Newest first (ordinals descending; segments come newest first too): a hit that only ties the page's worst is
    // older than it, so it is turned away without touching the heap. Not so for deleted nodes (base < 0), whose
    // ordinals grow as d falls: the heap decides.
    const tiesOlder = base >= 0;
    const bounds = this.prune ? this.bounds.compute(seg, terms, idfs, norms, p.s.limit) : undefined;
    // A table when it is small beside the segment (else, many codes × many lengths, the arithmetic per node).
    const tables = terms.map((s, i) => (s.codes !== undefined && (s.wtf.length * nc <= 4 * p.s.limit || s.wtf.length * nc <= 4096) ? this.table(i, s.wtf.length * nc) : undefined));
    const allTables = tables.every((t) => t !== undefined);
    for (const s of terms) s.p = s.ords.length - 1;
    for (let k = Math.ceil(W / WORDS_PER_CHUNK) - 1; k >= 0; k--) {
      if (bounds !== undefined && top.full) {
        const b = bounds[k]!;
        const threshold = top.threshold;
        if (b < threshold || (b === threshold && tiesOlder)) {
          this.counted++;
          continue;
        }
      }
      const from = k * WORDS_PER_CHUNK;
      const to = Math.min(W, from + WORDS_PER_CHUNK);
      this.scored++;
      if (allTables) this.chunkDense(p, C, from, to, terms, tables as Float64Array[], idfs, tiesOlder);
      else this.chunkAny(p, C, from, to, terms, tables, idfs, tiesOlder);
    }
    return count;
  }

  /** Positive term i's score table of `size` entries, none computed yet (NaN); its storage reused from segment to segment. */
  private table(i: number, size: number): Float64Array {
    let t = this.tables[i];
    if (t === undefined || t.length < size) this.tables[i] = t = new Float64Array(Math.max(size, 2 * (t?.length ?? 0)));
    return t.subarray(0, size).fill(NaN);
  }

  /** Clears from C the candidates the role and time filters turn away (per document); returns those left. */
  private filter(seg: LoadedSegment, C: Uint32Array, W: number): number {
    const role = this.role;
    const timed = this.timed;
    const since = this.filters.sinceMs ?? -Infinity;
    const until = this.filters.untilMs ?? Infinity;
    let count = 0;
    if (role < 0 && !timed) {
      for (let w = 0; w < W; w++) count += popcount(C[w]!);
      return count;
    }
    for (let w = 0; w < W; w++) {
      let x = C[w]!;
      let keep = x;
      while (x !== 0) {
        const bit = 31 - Math.clz32(x);
        x ^= 1 << bit;
        const d = (w << 5) + bit;
        let ok = role < 0 || seg.roleCodeAt(d) === role;
        if (ok && timed) {
          const at = seg.createdAt(d);
          ok = !Number.isNaN(at) && at >= since && at <= until;
        }
        if (ok) count++;
        else keep &= ~(1 << bit);
      }
      C[w] = keep >>> 0;
    }
    return count;
  }

  /** Words [from, to) of C, every positive term dense with a table: code lookups and table lookups only. */
  private chunkDense(p: SegmentPlan, C: Uint32Array, from: number, to: number, terms: readonly SlotData[], tables: readonly Float64Array[], idfs: Float64Array, tiesOlder: boolean): void {
    const top = this.top;
    const base = p.s.base;
    const cls = p.s.seg.lengthClass;
    const nc = p.s.seg.classLengths.length;
    const norms = this.norms;
    const n = terms.length;
    const codes = terms.map((s) => s.codes!);
    let threshold = top.threshold;
    for (let w = to - 1; w >= from; w--) {
      let x = C[w]!;
      while (x !== 0) {
        const bit = 31 - Math.clz32(x);
        x ^= 1 << bit;
        const d = (w << 5) + bit;
        const cl = cls[d]!;
        let score = 0;
        for (let i = 0; i < n; i++) {
          const c = codes[i]![d]!;
          if (c === 0) continue;
          const t = tables[i]!;
          const at = c * nc + cl;
          let v = t[at]!;
          // NaN: not computed yet for this pair.
          if (v !== v) v = t[at] = contribution(idfs[i]!, terms[i]!.wtf[c]!, norms[cl]!);
          score += v;
        }
        if (score < threshold || (score === threshold && tiesOlder && top.full)) continue;
        top.offer(score, base >= 0 ? base + d : base - d, p.si, d);
        threshold = top.threshold;
      }
    }
  }

  /** Words [from, to) of C, any terms: dense ones from their codes (a table or the arithmetic), sparse ones walked. */
  private chunkAny(p: SegmentPlan, C: Uint32Array, from: number, to: number, terms: readonly SlotData[], tables: ReadonlyArray<Float64Array | undefined>, idfs: Float64Array, tiesOlder: boolean): void {
    const top = this.top;
    const base = p.s.base;
    const cls = p.s.seg.lengthClass;
    const nc = p.s.seg.classLengths.length;
    const norms = this.norms;
    const n = terms.length;
    let threshold = top.threshold;
    for (let w = to - 1; w >= from; w--) {
      let x = C[w]!;
      while (x !== 0) {
        const bit = 31 - Math.clz32(x);
        x ^= 1 << bit;
        const d = (w << 5) + bit;
        const cl = cls[d]!;
        let score = 0;
        for (let i = 0; i < n; i++) {
          const s = terms[i]!;
          let tf: number;
          const codes = s.codes;
          if (codes !== undefined) {
            const c = codes[d]!;
            if (c === 0) continue;
            const t = tables[i];
            if (t !== undefined) {
              const at = c * nc + cl;
              let v = t[at]!;
              if (v !== v) v = t[at] = contribution(idfs[i]!, s.wtf[c]!, norms[cl]!);
              score += v;
              continue;
            }
            tf = s.wtf[c]!;
          } else {
            // Sparse: its postings walked down with the candidates (ordinals descending).
            const ords = s.ords;
            let q = s.p;
            while (q >= 0 && ords[q]! > d) q--;
            s.p = q;
            if (q < 0 || ords[q] !== d) continue;
            tf = s.wtfs[q]!;
          }
          score += contribution(idfs[i]!, tf, norms[cl]!);
        }
        if (score < threshold || (score === threshold && tiesOlder && top.full)) continue;
        top.offer(score, base >= 0 ? base + d : base - d, p.si, d);
        threshold = top.threshold;
      }
    }
  }
}
