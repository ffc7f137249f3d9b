import { ChunkBounds } from './chunk-bounds';
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
 * cannot beat the page's worst hit — or only ties it while older — only counted. A score is Σ idf × impact over the
 * query's positive terms, added from 0 in the plan's order (PostgreSQL's: search-plan.ts), in float64 as PostgreSQL's
 * float8 sum: the two stores' scores are equal to the bit. A dense term's contribution is a function of its code
 * alone (no length normalization): a table of at most 256 products per term and segment, looked up per document.
 */
export class SegmentScorer {
  private readonly tables: Float64Array[] = [];
  private readonly bounds = new ChunkBounds();
  private readonly role: number;
  private readonly timed: boolean;
  /** Chunks holding candidates scored, and only counted. */
  scored = 0;
  counted = 0;

  constructor(
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
    const terms = p.positiveSlots.map((k) => data[k]!);
    const idfs = Float64Array.from(p.positiveSlots, (k) => p.slots[k]!.idf);
    const top = this.top;
    const base = p.s.base;
    // Newest first (ordinals descending; segments come newest first too): a hit that only ties the page's worst is
    // older than it, so it is turned away without touching the heap. Not so for deleted nodes (base < 0), whose
    // ordinals grow as d falls: the heap decides.
    const tiesOlder = base >= 0;
    const tables = terms.map((s, i) => (s.codes !== undefined ? this.table(i, s.impact, idfs[i]!) : undefined));
    const bounds = this.prune ? this.bounds.compute(terms, idfs, tables, p.s.limit) : undefined;
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
      if (allTables) this.chunkDense(p, C, from, to, terms, tables as Float64Array[], tiesOlder);
      else this.chunkAny(p, C, from, to, terms, tables, idfs, tiesOlder);
    }
    return count;
  }

  /** Dense positive term i's contributions per code, idf × impact (code 0, absent: 0); its storage reused from segment to segment. */
  private table(i: number, impact: Float64Array, idf: number): Float64Array {
    let t = this.tables[i];
    if (t === undefined || t.length < impact.length) this.tables[i] = t = new Float64Array(256);
    const out = t.subarray(0, impact.length);
    out[0] = 0;
    for (let c = 1; c < impact.length; c++) out[c] = idf * impact[c]!;
    return out;
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

  /** Words [from, to) of C, every positive term dense: code lookups and table lookups only. */
  private chunkDense(p: SegmentPlan, C: Uint32Array, from: number, to: number, terms: readonly SlotData[], tables: readonly Float64Array[], tiesOlder: boolean): void {
    const top = this.top;
    const base = p.s.base;
    const n = terms.length;
    const codes = terms.map((s) => s.codes!);
    let threshold = top.threshold;
    for (let w = to - 1; w >= from; w--) {
      let x = C[w]!;
      while (x !== 0) {
        const bit = 31 - Math.clz32(x);
        x ^= 1 << bit;
        const d = (w << 5) + bit;
        let score = 0;
        for (let i = 0; i < n; i++) score += tables[i]![codes[i]![d]!]!;
        if (score < threshold || (score === threshold && tiesOlder && top.full)) continue;
        top.offer(score, base >= 0 ? base + d : base - d, p.si, d);
        threshold = top.threshold;
      }
    }
  }

  /** Words [from, to) of C, any terms: dense ones from their tables, sparse ones walked. */
  private chunkAny(p: SegmentPlan, C: Uint32Array, from: number, to: number, terms: readonly SlotData[], tables: ReadonlyArray<Float64Array | undefined>, idfs: Float64Array, tiesOlder: boolean): void {
    const top = this.top;
    const base = p.s.base;
    const n = terms.length;
    let threshold = top.threshold;
    for (let w = to - 1; w >= from; w--) {
      let x = C[w]!;
      while (x !== 0) {
        const bit = 31 - Math.clz32(x);
        x ^= 1 << bit;
        const d = (w << 5) + bit;
        let score = 0;
        for (let i = 0; i < n; i++) {
          const s = terms[i]!;
          const t = tables[i];
          if (t !== undefined) {
            score += t[s.codes![d]!]!;
            continue;
          }
          // Sparse: its postings walked down with the candidates (ordinals descending).
          const ords = s.ords;
          let q = s.p;
          while (q >= 0 && ords[q]! > d) q--;
          s.p = q;
          if (q < 0 || ords[q] !== d) continue;
          score += idfs[i]! * s.impacts[q]!;
        }
        if (score < threshold || (score === threshold && tiesOlder && top.full)) continue;
        top.offer(score, base >= 0 ? base + d : base - d, p.si, d);
        threshold = top.threshold;
      }
    }
  }
}
