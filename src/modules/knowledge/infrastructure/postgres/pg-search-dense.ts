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

/** Bytes a list's bitmap and ranks take, with its per-word and per-byte highest impacts when scored (0 when none). */
export function denseBytes(seqs: Int32Array, impacts?: Float32Array): number {
  const d = denseOf(seqs);
  return d ? d.bits.byteLength + d.rank.byteLength + (impacts ? wordMaxima(seqs, impacts)!.byteLength + byteMaxima(seqs, impacts)!.byteLength : 0) : 0;
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
const wordMax = new WeakMap<Float32Array, Float32Array>();

/**
 * Per 8-seq byte of a dense scored list's bitmap (4 to a word: entry w * 4 + y is bits 8y…8y+7 of word w), the highest
 * impact there: Σ idf × these bounds every score in the byte (float rounding is monotone, so the bound holds in float8
 * too). A byte holds ~3 of a common word's seqs where a 32-seq word holds ~12, so its highest impact is more often a
 * low one: at 1,000,000 nodes the walk scores ~1,500 of 46,569 three-word matches against ~12,500 with per-word
 * bounds (bench/knowledge-search-intersect.js). 4 bytes per 8 seqs of span: 500 KB beside a common word's 2.9 MB list
 * at 1,000,000 nodes, up to twice the list's own bytes at the least density made dense (the cache's budget counts it).
 */
export function byteMaxima(seqs: Int32Array, impacts: Float32Array): Float32Array | undefined {
  const d = denseOf(seqs);
  if (!d) return undefined;
  let m = maxima.get(impacts);
  if (!m) {
    m = new Float32Array(d.bits.length * 4);
    for (let i = 0; i < seqs.length; i++) {
      const y = seqs[i]! >>> 3;
      if (impacts[i]! > m[y]!) m[y] = impacts[i]!;
    }
    maxima.set(impacts, m);
  }
  return m;
}

/**
 * Per 32-seq word of a dense scored list, the highest impact: the walk's first check of a word once its page is full
 * (3 reads where the bytes' bounds are up to 12), and the only bounds of the walk before per-byte ones
 * (pg-search-dense-seq-order.ts, the bench's baseline).
 */
export function wordMaxima(seqs: Int32Array, impacts: Float32Array): Float32Array | undefined {
  const d = denseOf(seqs);
  if (!d) return undefined;
  let m = wordMax.get(impacts);
  if (!m) {
    m = new Float32Array(d.bits.length);
    for (let i = 0; i < seqs.length; i++) {
      const w = seqs[i]! >>> 5;
      if (impacts[i]! > m[w]!) m[w] = impacts[i]!;
    }
    wordMax.set(impacts, m);
  }
  return m;
}
