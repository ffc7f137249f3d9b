import { CHUNK_DOCS } from './segment-format';
import type { SlotData } from './slot-data';

/**
 * Per chunk of {@link CHUNK_DOCS} documents of a segment, a score no candidate there can exceed: the sum, in the
 * scoring's order of terms, of each term's largest contribution (idf × impact) in the chunk — a dense term's from the
 * code of highest impact stored per chunk at build (segment-format.ts), a sparse term's the largest over its postings
 * in the chunk. A product by the same idf (positive) is monotone in the impact, and float addition is monotone in
 * each operand, so the sum bounds every candidate's score as the scoring adds it (a term a candidate lacks adds 0,
 * no more than its bound).
 */
export class ChunkBounds {
  bounds = new Float64Array(0);
  private best = new Float64Array(0);

  /** `contributions[i]`: dense term i's idf × impact per code (code 0: 0), undefined for a sparse term. */
  compute(terms: readonly SlotData[], idfs: Float64Array, contributions: ReadonlyArray<Float64Array | undefined>, limit: number): Float64Array {
    const chunks = Math.ceil(limit / CHUNK_DOCS);
    if (this.bounds.length < chunks) {
      this.bounds = new Float64Array(chunks);
      this.best = new Float64Array(chunks);
    }
    const bounds = this.bounds.subarray(0, chunks).fill(0);
    const best = this.best;
    for (let i = 0; i < terms.length; i++) {
      const s = terms[i]!;
      const chunkBest = s.chunkBest;
      const contribution = contributions[i];
      if (contribution !== undefined && chunkBest !== undefined) {
        for (let k = 0; k < chunks; k++) bounds[k] = bounds[k]! + contribution[chunkBest[k]!]!;
        continue;
      }
      const idf = idfs[i]!;
      best.fill(0, 0, chunks);
      const ords = s.ords;
      const impacts = s.impacts;
      for (let q = 0; q < ords.length; q++) {
        const d = ords[q]!;
        if (d >= limit) break;
        const k = Math.floor(d / CHUNK_DOCS);
        const v = idf * impacts[q]!;
        if (v > best[k]!) best[k] = v;
      }
      for (let k = 0; k < chunks; k++) bounds[k] = bounds[k]! + best[k]!;
    }
    return bounds;
  }
}
