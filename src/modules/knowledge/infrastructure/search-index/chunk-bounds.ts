import { BM25_K1 } from '../../domain/search/bm25';
import { CHUNK_DOCS } from './segment-format';
import type { LoadedSegment } from './segment-reader';
import type { SlotData } from './slot-data';

const K1_PLUS_1 = BM25_K1 + 1;

/**
 * One term's contribution (termScore's arithmetic exactly, bm25.ts scoreWithNorm: the float the scoring adds).
 * For a fixed frequency it never grows with the norm: the numerator is the same float, the denominator's rounding is
 * monotone, and so is the division's.
 */
export function contribution(idf: number, tf: number, norm: number): number {
  return tf > 0 ? (idf * tf * K1_PLUS_1) / (tf + norm) : 0;
}

/**
 * Per chunk of {@link CHUNK_DOCS} documents of a segment, a score no candidate there can exceed, whatever the query's
 * idfs and average length: the sum, in the scoring's order of terms, of each term's largest contribution at the
 * chunk's smallest norm (its shortest document's). Dense term: the largest over the codes whose weighted frequency is
 * at most the chunk's best code's (stored per chunk at build) — no assumption that the float arithmetic grows with
 * the frequency; sparse term: the largest over its postings in the chunk. Float addition is monotone too, so the
 * sum bounds every candidate's score as the scoring adds it.
 */
export class ChunkBounds {
  bounds = new Float64Array(0);
  private best = new Float64Array(0);
  private cache = new Float64Array(0);

  /** `size` entries, none computed yet (NaN). */
  private cacheOf(size: number): Float64Array {
    if (this.cache.length < size) this.cache = new Float64Array(size);
    return this.cache.subarray(0, size).fill(NaN);
  }

  compute(seg: LoadedSegment, terms: readonly SlotData[], idfs: Float64Array, norms: Float64Array, limit: number): Float64Array {
    const chunks = Math.ceil(limit / CHUNK_DOCS);
    if (this.bounds.length < chunks) {
      this.bounds = new Float64Array(chunks);
      this.best = new Float64Array(chunks);
    }
    const bounds = this.bounds.subarray(0, chunks).fill(0);
    const best = this.best;
    const shortest = seg.chunkShortest;
    for (let i = 0; i < terms.length; i++) {
      const s = terms[i]!;
      const idf = idfs[i]!;
      const chunkBest = s.chunkBest;
      if (s.codes !== undefined && chunkBest !== undefined) {
        const wtf = s.wtf;
        // Per (best code, shortest class) met, computed once: a segment's chunks share a few.
        const n = wtf.length;
        const nc = seg.classLengths.length;
        const cache = n * nc <= 1 << 14 ? this.cacheOf(n * nc) : undefined;
        for (let k = 0; k < chunks; k++) {
          const m = chunkBest[k]!;
          if (m === 0) continue;
          const cl = shortest[k]!;
          let v = cache !== undefined ? cache[m * nc + cl]! : NaN;
          if (v !== v) {
            // A few dozen codes at most in practice (255 at worst).
            v = 0;
            for (let c = 1; c < n; c++) if (wtf[c]! <= wtf[m]!) v = Math.max(v, contribution(idf, wtf[c]!, norms[cl]!));
            if (cache !== undefined) cache[m * nc + cl] = v;
          }
          bounds[k] = bounds[k]! + v;
        }
        continue;
      }
      best.fill(0, 0, chunks);
      const ords = s.ords;
      const wtfs = s.wtfs;
      for (let q = 0; q < ords.length; q++) {
        const d = ords[q]!;
        if (d >= limit) break;
        const k = Math.floor(d / CHUNK_DOCS);
        const v = contribution(idf, wtfs[q]!, norms[shortest[k]!]!);
        if (v > best[k]!) best[k] = v;
      }
      for (let k = 0; k < chunks; k++) bounds[k] = bounds[k]! + best[k]!;
    }
    return bounds;
  }
}
