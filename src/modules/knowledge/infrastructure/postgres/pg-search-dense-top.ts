import { byteMaxima, popcount, wordMaxima } from './pg-search-dense';
import { lastWord, watermarkMask, type DenseQuery } from './pg-search-dense-query';
import { better, keep, type IntersectionResult } from './pg-search-page';
import { highOf, reachingSets, type HighBits } from './pg-search-dense-high';

/**
 * The all-dense intersection: one pass over the 32-bit words in seq order — AND the bitmaps, AND NOT the exclusions
 * (dense by word, sparse by a merge of their ascending seqs, so `total` is every match's popcount, exact), the
 * watermark's mask — and once the page is full, each non-empty byte of the word is scored only if its bound (Σ idf ×
 * the lists' highest impacts in that byte, byteMaxima; summed in the scores' order, so it holds every score there) is
 * not strictly below the page's worst: a tie can still enter (a higher seq ranks first, `better`). Before those, a
 * match is left unscored when the lists it is above its base impact in cannot reach the worst (pg-search-dense-high.ts:
 * a few ANDs per word with the lists' above-base bitmaps — three common words at 1,000,000 nodes: ~80 % of each list
 * at its base, a page's worst needing two of three above it). The page is the
 * best `want` of every match, as scoring them all would give. With a cursor the same walk is exact: a match ranking
 * before the cursor is scored and passed over, and the page fills from those after it. So `afterCount` is every match
 * with no cursor (`total`), else those scored after the cursor: at least the page's, 0 only when none is left.
 *
 * Not best-bounded words first (a heap of the non-empty words' bounds, popped until the next is below the page's
 * worst): measured at 1,000,000 nodes (bench/knowledge-search-intersect.js) it scored ~7,000 matches where the
 * seq-order walk with per-word bounds scored ~12,500, yet took 1.8–3× as long — the extra pass over 24,000 words, and
 * every popped word's bits, ranks and impacts read out of order (cache misses) — and seeding the seq-order walk with
 * the best-bounded words first still lost (1.4×). Finer bounds in seq order cut the scoring to ~1,500 matches.
 */
export function boundedTop(q: DenseQuery): IntersectionResult {
  const { bits, excludedBits: xbits, excludedSeqs: xSparse, want } = q;
  const nScored = q.scored.length;
  const idf = q.scored.map((s) => s.idf);
  const impacts = q.scored.map((s) => s.impacts);
  const sBits = q.scored.map((s) => s.dense.bits);
  const sRank = q.scored.map((s) => s.dense.rank);
  const wMax = q.scored.map((s) => wordMaxima(s.seqs, s.impacts)!);
  const sMax = q.scored.map((s) => byteMaxima(s.seqs, s.impacts)!);
  const highs: HighBits[] = q.scored.map((s) => highOf(s.seqs, s.impacts)!);
  // The sets of lists a match must be above its base in to reach the page's worst, for the worst they were made for.
  let sets: number[][] | undefined;
  let setsWorst = NaN;
  const last = q.upTo >= 0 ? lastWord(q) : -1;
  const lastMask = last >= 0 ? watermarkMask(q, last) : 0;
  const after = q.after;
  const top: Array<{ seq: number; score: number }> = [];
  const xAt = xSparse.map(() => 0);
  let total = 0;
  let afterCount = 0;
  for (let w = 0; w <= last; w++) {
    let word = bits[0]![w]!;
    for (let i = 1; i < bits.length && word; i++) word &= bits[i]![w]!;
    for (let i = 0; i < xbits.length && word; i++) if (w < xbits[i]!.length) word &= ~xbits[i]![w]!;
    if (w === last) word &= lastMask;
    if (!word) continue;
    // A sparse exclusion's seqs ascend as the words do: each is read once, clearing its bit in its word (those of
    // words left out above are passed over).
    for (let j = 0; j < xSparse.length; j++) {
      const x = xSparse[j]!;
      let p = xAt[j]!;
      const end = (w + 1) * 32;
      while (p < x.length && x[p]! < end) {
        if (x[p]! >= w * 32) word &= ~(1 << (x[p]! & 31));
        p++;
      }
      xAt[j] = p;
    }
    if (!word) continue;
    total += popcount(word);
    if (want <= 0) continue;
    if (top.length === want) {
      // The page is full: a word whose bound is below its worst is only counted; else only the bytes whose bound
      // reaches it are scored (the worst only rises meanwhile).
      const worst = top[want - 1]!.score;
      if (worst !== setsWorst) [sets, setsWorst] = [reachingSets(idf, highs, worst), worst];
      if (sets) {
        let reaching = 0;
        for (const set of sets) {
          let m = word;
          for (let k = 0; k < set.length && m; k++) m &= highs[set[k]!]!.bits[w]!;
          reaching |= m;
        }
        word = reaching;
        if (!word) continue;
      }
      let bound = 0;
      for (let i = 0; i < nScored; i++) bound += idf[i]! * wMax[i]![w]!;
      if (bound < worst) continue;
      let reach = 0;
      for (let y = 0; y < 4; y++) {
        const byte = 0xff << (8 * y);
        if (!(word & byte)) continue;
        let bound = 0;
        for (let i = 0; i < nScored; i++) bound += idf[i]! * sMax[i]![w * 4 + y]!;
        if (!(bound < worst)) reach |= byte;
      }
      word &= reach;
    }
    while (word) {
      const low = word & -word;
      const b = 31 - Math.clz32(low);
      const seq = w * 32 + b;
      word ^= low;
      // A set bit's index in a scored list: its word's rank and the list's bits below it in the word.
      const below = b === 0 ? 0 : (1 << b) - 1;
      let score = 0;
      for (let i = 0; i < nScored; i++) score += idf[i]! * impacts[i]![sRank[i]![w]! + popcount(sBits[i]![w]! & below)]!;
      if (after && !better(after.score, after.seq, score, seq)) continue;
      afterCount++;
      keep(top, want, score, seq);
    }
  }
  return { top, total, afterCount: after ? afterCount : total };
}
