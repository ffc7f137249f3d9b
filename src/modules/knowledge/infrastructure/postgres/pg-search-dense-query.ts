import type { Dense } from './pg-search-dense';

/** The intersection of dense lists only (every required list has a bitmap, pg-search-dense.ts), as its walks read it. */
export interface DenseQuery {
  /** Every required list's bitmap (scored and unscored). */
  bits: readonly Uint32Array[];
  /** The scored lists in the statistics' order: seqs, bitmap and ranks, impacts, idf. */
  scored: ReadonlyArray<{ seqs: Int32Array; dense: Dense; impacts: Float32Array; idf: number }>;
  /** The dense exclusions' bitmaps. */
  excludedBits: readonly Uint32Array[];
  /** The sparse exclusions' sorted seqs. */
  excludedSeqs: readonly Int32Array[];
  upTo: number;
  after?: { score: number; seq: number };
  want: number;
}

/** The highest word index the walks read: the watermark's, or the shortest bitmap's last. */
export function lastWord(q: DenseQuery): number {
  return Math.min(q.upTo >>> 5, ...q.bits.map((b) => b.length - 1));
}

/** The bits of word `w` the watermark leaves (all but those above `upTo` in its own word). */
export function watermarkMask(q: DenseQuery, w: number): number {
  return w === q.upTo >>> 5 && (q.upTo & 31) !== 31 ? (1 << ((q.upTo & 31) + 1)) - 1 : -1;
}
