/**
 * A dense list's bitmap beside its sorted seqs: bit `seq` set for every seq of the list, and per 32-bit word the count
 * of seqs before it (the rank: a seq's index in the list, so its impact, is rank[w] + the set bits below it in its
 * word). Made for a list holding at least one seq in 32 of its span (then bitmap and ranks take at most the list's own
 * bytes): three common words at 1,000,000 nodes (~374,000 seqs each) intersect as 31,250 word ANDs instead of a
 * search per seq. Lists never change once made (a sync makes new ones), so the bitmap is kept per list.
 */
export interface Dense {
  bits: Uint32Array;
  rank: Uint32Array;
}

const made = new WeakMap<Int32Array, Dense | null>();

/** The list's bitmap and ranks, or undefined for a sparse one (or a list of no seqs). */
export function denseOf(seqs: Int32Array): Dense | undefined {
  const known = made.get(seqs);
  if (known !== undefined) return known ?? undefined;
  let out: Dense | null = null;
  const n = seqs.length;
  if (n > 0 && n * 32 >= seqs[n - 1]! + 1) {
    const words = (seqs[n - 1]! >>> 5) + 1;
    const bits = new Uint32Array(words);
    const rank = new Uint32Array(words);
    for (let i = 0; i < n; i++) {
      const s = seqs[i]!;
      bits[s >>> 5]! |= 1 << (s & 31);
    }
    let c = 0;
    for (let w = 0; w < words; w++) {
      rank[w] = c;
      c += popcount(bits[w]!);
    }
    out = { bits, rank };
  }
  made.set(seqs, out);
  return out ?? undefined;
}

/** Bytes a list's bitmap and ranks take (0 when it has none). */
export function denseBytes(seqs: Int32Array, impacts?: Float32Array): number {
  const d = denseOf(seqs);
  return d ? d.bits.byteLength + d.rank.byteLength + (impacts ? wordMaxima(seqs, impacts)!.byteLength : 0) : 0;
}

export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Whether `seq` is in the dense list. */
export function hasSeq(d: Dense, seq: number): boolean {
  const w = seq >>> 5;
  return w < d.bits.length && (d.bits[w]! & (1 << (seq & 31))) !== 0;
}

/** The index of `seq` (which the list holds) in the list's sorted seqs. */
export function indexOf(d: Dense, seq: number): number {
  const w = seq >>> 5;
  const b = seq & 31;
  return d.rank[w]! + (b === 0 ? 0 : popcount(d.bits[w]! & ((1 << b) - 1) >>> 0));
}

const maxima = new WeakMap<Float32Array, Float32Array>();

/**
 * Per 32-seq word of a dense scored list, the highest impact there: Σ idf × these bounds every score in the word
 * (float rounding is monotone, so the bound holds in float8 too), and a word whose bound is below the page's worst is
 * counted without scoring.
 */
export function wordMaxima(seqs: Int32Array, impacts: Float32Array): Float32Array | undefined {
  const d = denseOf(seqs);
  if (!d) return undefined;
  let m = maxima.get(impacts);
  if (!m) {
    m = new Float32Array(d.bits.length);
    for (let i = 0; i < seqs.length; i++) {
      const w = seqs[i]! >>> 5;
      if (impacts[i]! > m[w]!) m[w] = impacts[i]!;
    }
    maxima.set(impacts, m);
  }
  return m;
}
