import { byteMaxima, popcount, wordMaxima } from './pg-search-dense';
import { lastWord, watermarkMask, type DenseQuery } from './pg-search-dense-query';
import { better, keep, type IntersectionResult } from './pg-search-page';
import { highOf, reachingVectors } from './pg-search-dense-high';

/**
 * The all-dense intersection: one pass over the 32-bit words in seq order — AND the bitmaps (and NOT the exclusions,
 * ANDed into one array first when there are any, or more than three lists), the watermark's mask; `total` is every
 * match's popcount, exact. Once the page is full a match is scored only if it can reach the page's worst:
 * - its impact bucket in each list (base, above base, top: pg-search-dense-high.ts) must be at least one of the
 *   vectors that can reach it in every list (reachingVectors, redone every 128 words while the worst rises; an older
 *   worst's vectors are looser, still sound) — a few ANDs per word;
 * - its word's bound, then its 8-seq byte's (Σ idf × the lists' highest impacts there, summed in the scores' order),
 *   must not be strictly below the worst: a tie can still enter (a higher seq ranks first, `better`).
 * Each match is scored at most once, so the page is the best `want` of every match, as scoring them all would give.
 * With a cursor the same walk is exact: a match ranking before the cursor is scored and passed over, and the page
 * fills from those after it. `afterCount` is every match with no cursor (`total`), else those scored after the
 * cursor: at least the page's, 0 only when none is left.
 *
 * One pass, not several: the lists' bitmaps (125 KB each at 1,000,000 nodes) do not all stay in the CPU's caches, so
 * a second pass over them costs as much as the first (three passes 1.55–1.68 ms, one 0.81–0.83 ms on the 1,000,000-node
 * bench's real lists; docs/architecture.md).
 * Best-bounded words first through a heap lost too (1.8–3×: out-of-order reads).
 */
export function boundedTop(q: DenseQuery): IntersectionResult {
  const { bits, excludedBits, excludedSeqs, want } = q;
  const last = q.upTo >= 0 ? lastWord(q) : -1;
  if (last < 0) return { top: [], total: 0, afterCount: 0 };
  const words = last + 1;
  const nScored = q.scored.length;
  const highs = q.scored.map((s) => highOf(s.seqs, s.impacts)!);
  // The loop reads three bitmaps directly (a missing one is the first again: ANDing it twice changes nothing).
  let b = bits.slice(0, 3);
  if (bits.length > 3 || excludedBits.length || excludedSeqs.length) b = [matchesOf(q, words)];
  const b0 = b[0]!;
  const b1 = b[1] ?? b0;
  const b2 = b[2] ?? b0;
  // The above-base bitmaps of the (at most three) scored lists the sets are masks over; with more, no sets.
  const hs0 = highs[0]?.bits ?? b0;
  const hs1 = highs[1]?.bits ?? b0;
  const hs2 = highs[2]?.bits ?? b0;
  const lastMask = watermarkMask(q, last);
  const idf = q.scored.map((s) => s.idf);
  const impacts = q.scored.map((s) => s.impacts);
  const sBits = q.scored.map((s) => s.dense.bits);
  const sRank = q.scored.map((s) => s.dense.rank);
  const wMax = q.scored.map((s) => wordMaxima(s.seqs, s.impacts)!);
  const sMax = q.scored.map((s) => byteMaxima(s.seqs, s.impacts)!);
  const after = q.after;
  const top: Array<{ seq: number; score: number }> = [];
  let total = 0;
  let afterCount = 0;
  // Each list's top bitmap; none (zeros) for a list with no top or no list: a vector never asks for a top there, and
  // the prefilter below then reads only the lists that have one.
  const none = highs.length < 3 || highs.some((h) => !h.topBits) ? zeros(words) : b0;
  const ts0 = highs[0]?.topBits ?? none;
  const ts1 = highs[1]?.topBits ?? none;
  const ts2 = highs[2]?.topBits ?? none;
  // The minimal bucket vectors' masks for the worst `setsWorst`; nMasks -1: no filter (every match may reach, or more
  // than three lists).
  let setsWorst = NaN;
  let nMasks = -1;
  let allTop = false;
  const above = new Int32Array(27);
  const topm = new Int32Array(27);
  const reach = (w: number, word: number, a: number, t: number): number => {
    let r = word;
    if (a & 1) r &= t & 1 ? ts0[w]! : hs0[w]!;
    if (a & 2) r &= t & 2 ? ts1[w]! : hs1[w]!;
    if (a & 4) r &= t & 4 ? ts2[w]! : hs2[w]!;
    return r;
  };
  for (let w = 0; w < words; w++) {
    let word = b0[w]! & b1[w]! & b2[w]!;
    if (w === last) word &= lastMask;
    if (!word) continue;
    total += popcount(word);
    if (want <= 0) continue;
    if (top.length === want) {
      const worst = top[want - 1]!.score;
      if (nScored <= 3 && worst !== setsWorst && (w & 127) === 0) {
        let vectors = reachingVectors(idf, highs, worst);
        setsWorst = worst;
        allTop = !!vectors && vectors.every((v) => v.top !== 0);
        // Some vector asks for no top: the tops are left out (a looser filter, still sound) — the above-base masks
        // alone, fewer of them, with no top bitmap read per word.
        if (vectors && !allTop) {
          const masks = [...new Set(vectors.map((v) => v.above))];
          vectors = masks.filter((m) => !masks.some((o) => o !== m && (o & m) === o)).map((a) => ({ above: a, top: 0 }));
        }
        nMasks = vectors ? vectors.length : -1;
        vectors?.forEach((v, k) => ([above[k], topm[k]] = [v.above, v.top]));
      }
      if (nMasks >= 0) {
        // Every vector asks for a top somewhere: a word with no match at any list's top has no candidate (most words).
        if (allTop && !(word & (ts0[w]! | ts1[w]! | ts2[w]!))) continue;
        let r = 0;
        for (let k = 0; k < nMasks; k++) r |= reach(w, word, above[k]!, topm[k]!);
        word = r;
        if (!word) continue;
      }
      let bound = 0;
      for (let i = 0; i < nScored; i++) bound += idf[i]! * wMax[i]![w]!;
      if (bound < worst) continue;
      let reachBytes = 0;
      for (let y = 0; y < 4; y++) {
        const byte = 0xff << (8 * y);
        if (!(word & byte)) continue;
        let bound = 0;
        for (let i = 0; i < nScored; i++) bound += idf[i]! * sMax[i]![w * 4 + y]!;
        if (!(bound < worst)) reachBytes |= byte;
      }
      word &= reachBytes;
    }
    while (word) {
      const low = word & -word;
      const bit = 31 - Math.clz32(low);
      const seq = w * 32 + bit;
      word ^= low;
      // A set bit's index in a scored list: its word's rank and the list's bits below it in the word.
      const below = bit === 0 ? 0 : (1 << bit) - 1;
      let s = 0;
      for (let i = 0; i < nScored; i++) s += idf[i]! * impacts[i]![sRank[i]![w]! + popcount(sBits[i]![w]! & below)]!;
      if (after && !better(after.score, after.seq, s, seq)) continue;
      afterCount++;
      keep(top, want, s, seq);
    }
  }
  return { top, total, afterCount: after ? afterCount : total };
}

/** The matches' words (every bitmap ANDed, the exclusions taken out), for more than three lists or with exclusions. */
function matchesOf(q: DenseQuery, words: number): Uint32Array {
  const and = andOf(q.bits, words);
  for (const x of q.excludedBits) {
    const n = Math.min(words, x.length);
    for (let w = 0; w < n; w++) and[w]! &= ~x[w]!;
  }
  for (const x of q.excludedSeqs) {
    for (let j = 0; j < x.length; j++) {
      const s = x[j]!;
      if (s >= 0 && s >>> 5 < words) and[s >>> 5]! &= ~(1 << (s & 31));
    }
  }
  return and;
}

/** The AND of bitmaps over their first `words` words. */
function andOf(bitmaps: readonly Uint32Array[], words: number): Uint32Array {
  const and = bitmaps[0]!.slice(0, words);
  for (let i = 1; i < bitmaps.length; i++) {
    const b = bitmaps[i]!;
    for (let w = 0; w < words; w++) and[w]! &= b[w]!;
  }
  return and;
}

/** Zero words, shared and only read: grown once to the longest span asked for instead of allocated per search. */
let zeroWords = new Uint32Array(0);
function zeros(words: number): Uint32Array {
  if (zeroWords.length < words) zeroWords = new Uint32Array(words);
  return zeroWords;
}
