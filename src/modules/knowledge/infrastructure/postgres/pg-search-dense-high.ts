import { denseOf } from './pg-search-dense';

/**
 * A dense scored list's impacts in three buckets: at its lowest impact `base` (at 1,000,000 nodes ~80 % of a common
 * word's postings: one occurrence in the thought), above it, and at or above `top` — the highest impact level that,
 * with the levels over it, holds at least 2 % of the list (and 256 seqs; ~2.6 % of a common word's postings, two or
 * more occurrences). `bits` holds the seqs above `base`, `topBits` those at or above `top` (none when `top` would be
 * the level right above `base`: then bits are the top); `belowTop` is the highest impact under `top`. Which bucket a
 * match is in per list bounds its score before any impact is read ({@link reachingVectors}).
 */
export interface HighBits {
  base: number;
  max: number;
  bits: Uint32Array;
  topBits?: Uint32Array;
  belowTop?: number;
}

const TOP_SHARE = 0.02;
const TOP_MIN = 256;
const made = new WeakMap<Float32Array, HighBits>();

/** The list's buckets, made once per list (lists never change: a sync makes new ones); undefined for a sparse list. */
export function highOf(seqs: Int32Array, impacts: Float32Array): HighBits | undefined {
  const d = denseOf(seqs);
  if (!d) return undefined;
  let h = made.get(impacts);
  if (!h) {
    const counts = new Map<number, number>();
    for (let i = 0; i < impacts.length; i++) counts.set(impacts[i]!, (counts.get(impacts[i]!) ?? 0) + 1);
    const levels = [...counts.keys()].sort((a, b) => b - a);
    const base = levels[levels.length - 1] ?? 0;
    const max = levels[0] ?? 0;
    // The top: the highest level whose count with the levels above reaches the share, if above base's neighbour.
    const want = Math.max(TOP_MIN, Math.ceil(impacts.length * TOP_SHARE));
    let k = 0;
    for (let cum = 0; k < levels.length; k++) if ((cum += counts.get(levels[k]!)!) >= want) break;
    const hasTop = k < levels.length - 2;
    const bits = new Uint32Array(d.bits.length);
    const topBits = hasTop ? new Uint32Array(d.bits.length) : undefined;
    const top = hasTop ? levels[k]! : Infinity;
    for (let i = 0; i < seqs.length; i++) {
      const v = impacts[i]!;
      const s = seqs[i]!;
      if (v > base) bits[s >>> 5]! |= 1 << (s & 31);
      if (topBits && v >= top) topBits[s >>> 5]! |= 1 << (s & 31);
    }
    h = { base, max, bits, ...(topBits ? { topBits, belowTop: levels[k + 1]! } : {}) };
    made.set(impacts, h);
  }
  return h;
}

/** Bytes the buckets take (0 for a sparse list). */
export function highBytes(seqs: Int32Array, impacts: Float32Array): number {
  const h = highOf(seqs, impacts);
  return h ? h.bits.byteLength + (h.topBits?.byteLength ?? 0) : 0;
}

/** Lists over which bucket vectors are enumerated (3^n bounds each time the page's worst rises). */
export const MAX_HIGH_LISTS = 3;

/** A minimal bucket vector as masks over the lists: `above` — at least above base there; `top` — at the top there. */
export interface BucketMasks {
  above: number;
  top: number;
}

/**
 * The smallest bucket vectors a match must reach (per list: base, above base, top) for its score to reach `worst`:
 * for every vector v, the bound Σ idf × (the highest impact of v's bucket in each list) — summed in the scores'
 * order, each term at least the match's, and float addition is monotone, so it holds every score of a match whose
 * buckets are v. A vector is kept when its bound is not strictly below `worst` (a tie can still rank by seq). A
 * vector with higher buckets has a higher bound, so a match reaches the page only if its buckets are at least one
 * returned vector's in every list. `undefined`: every match may reach it (all at base does), or more than
 * MAX_HIGH_LISTS lists.
 */
export function reachingVectors(idf: readonly number[], highs: readonly HighBits[], worst: number): BucketMasks[] | undefined {
  const n = highs.length;
  if (n > MAX_HIGH_LISTS) return undefined;
  const buckets = highs.map((h) => (h.topBits ? [h.base, h.belowTop!, h.max] : [h.base, h.max]));
  const bound = (v: readonly number[]): number => {
    let b = 0;
    for (let i = 0; i < n; i++) b += idf[i]! * buckets[i]![v[i]!]!;
    return b;
  };
  const reaches = (v: readonly number[]) => !(bound(v) < worst);
  if (reaches(highs.map(() => 0))) return undefined;
  const vectors: number[][] = [[]];
  for (let i = 0; i < n; i++) vectors.splice(0, vectors.length, ...vectors.flatMap((v) => buckets[i]!.map((_, b) => [...v, b])));
  const out: BucketMasks[] = [];
  for (const v of vectors) {
    if (!reaches(v)) continue;
    // Minimal: no vector one bucket lower in one list reaches (those above it are covered by it).
    if (v.some((b, i) => b > 0 && reaches(v.map((x, j) => (j === i ? x - 1 : x))))) continue;
    out.push({
      above: v.reduce((m, b, i) => (b >= 1 ? m | (1 << i) : m), 0),
      top: v.reduce((m, b, i) => (b >= 2 ? m | (1 << i) : m), 0),
    });
  }
  return out;
}
