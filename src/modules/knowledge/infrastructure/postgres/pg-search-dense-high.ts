import { denseOf } from './pg-search-dense';

/**
 * A dense scored list's split at its lowest impact: `base` (the impact most of its seqs have — at 1,000,000 nodes
 * ~80 % of a common word's postings: one occurrence in the thought), its highest, and the bitmap of the seqs whose
 * impact is above `base`. A match outside a list's bitmap scores exactly `idf × base` there, so which of the lists
 * hold a match above their base bounds its score before any impact is read ({@link reachingSets}).
 */
export interface HighBits {
  base: number;
  max: number;
  bits: Uint32Array;
}

const made = new WeakMap<Float32Array, HighBits>();

/** The list's split, made once per list (lists never change: a sync makes new ones); undefined for a sparse list. */
export function highOf(seqs: Int32Array, impacts: Float32Array): HighBits | undefined {
  const d = denseOf(seqs);
  if (!d) return undefined;
  let h = made.get(impacts);
  if (!h) {
    let base = Infinity;
    let max = -Infinity;
    for (let i = 0; i < impacts.length; i++) {
      const v = impacts[i]!;
      if (v < base) base = v;
      if (v > max) max = v;
    }
    const bits = new Uint32Array(d.bits.length);
    for (let i = 0; i < seqs.length; i++) if (impacts[i]! > base) bits[seqs[i]! >>> 5]! |= 1 << (seqs[i]! & 31);
    h = { base, max, bits };
    made.set(impacts, h);
  }
  return h;
}

/** Bytes the split takes (0 for a sparse list). */
export function highBytes(seqs: Int32Array, impacts: Float32Array): number {
  return highOf(seqs, impacts)?.bits.byteLength ?? 0;
}

/** Lists over which subsets are enumerated (2^n bounds each time the page's worst rises). */
export const MAX_HIGH_LISTS = 6;

/**
 * The smallest sets of lists (indices) a match must be above its base in for its score to reach `worst`: for every
 * set S, the bound Σ idf × (max in S, base outside) — summed in the scores' order, each term at least the match's,
 * and float addition is monotone, so it holds every score of a match whose above-base lists are S. A set is kept when
 * its bound is not strictly below `worst` (a tie can still rank by seq). Supersets of a kept set are kept too (the
 * bound only grows), so a match reaches the page only if its above-base lists include one of the returned sets.
 * `undefined`: every match may reach it (the empty set does), or there are more than MAX_HIGH_LISTS lists.
 */
export function reachingSets(idf: readonly number[], highs: readonly HighBits[], worst: number): number[][] | undefined {
  const n = highs.length;
  if (n > MAX_HIGH_LISTS) return undefined;
  const reaches = (set: number): boolean => {
    let bound = 0;
    for (let i = 0; i < n; i++) bound += idf[i]! * (set & (1 << i) ? highs[i]!.max : highs[i]!.base);
    return !(bound < worst);
  };
  if (reaches(0)) return undefined;
  const out: number[][] = [];
  for (let set = 1; set < 1 << n; set++) {
    if (!reaches(set)) continue;
    // Minimal: no set with one list fewer reaches (the others are covered by it).
    let minimal = true;
    for (let i = 0; i < n && minimal; i++) if (set & (1 << i) && reaches(set & ~(1 << i))) minimal = false;
    if (minimal) out.push([...Array(n).keys()].filter((i) => set & (1 << i)));
  }
  return out;
}
