import { popcount, wordMaxima } from './pg-search-dense';
import { lastWord, watermarkMask, type DenseQuery } from './pg-search-dense-query';
import { better, keep, type IntersectionResult } from './pg-search-page';
import { seek } from './pg-search-seek';

/**
 * The all-dense intersection as it was before per-byte bounds (pg-search-dense-top.ts): every set bit scored until
 * the page is full, then a word whose bound (Σ idf × its highest impacts per 32 seqs) is below the page's worst only
 * counted, and no word skipped at all with a sparse exclusion. Not on the search's path: kept as the baseline
 * bench/knowledge-search-intersect.js measures the search's walk against, and as a second reference for the unit
 * test. Its `afterCount` counts the matches it scored after the cursor.
 */
export function seqOrderTop(q: DenseQuery): IntersectionResult {
  const { bits, excludedBits: xbits, excludedSeqs: xSparse, want } = q;
  const nScored = q.scored.length;
  const idf = q.scored.map((s) => s.idf);
  const impacts = q.scored.map((s) => s.impacts);
  const sBits = q.scored.map((s) => s.dense.bits);
  const sRank = q.scored.map((s) => s.dense.rank);
  const sMax = q.scored.map((s) => wordMaxima(s.seqs, s.impacts)!);
  const xAt = xSparse.map(() => 0);
  const after = q.after;
  const top: Array<{ seq: number; score: number }> = [];
  let total = 0;
  let afterCount = 0;
  const last = lastWord(q);
  for (let w = 0; w <= last && q.upTo >= 0; w++) {
    let word = bits[0]![w]!;
    for (let i = 1; i < bits.length && word; i++) word &= bits[i]![w]!;
    for (let i = 0; i < xbits.length && word; i++) if (w < xbits[i]!.length) word &= ~xbits[i]![w]!;
    word &= watermarkMask(q, w);
    if (word && top.length === want && xSparse.length === 0) {
      let bound = 0;
      for (let i = 0; i < nScored; i++) bound += idf[i]! * sMax[i]![w]!;
      if (bound < top[top.length - 1]!.score) {
        total += popcount(word);
        continue;
      }
    }
    next: while (word) {
      const low = word & -word;
      const b = 31 - Math.clz32(low);
      const seq = w * 32 + b;
      word ^= low;
      for (let j = 0; j < xSparse.length; j++) {
        const x = xSparse[j]!;
        xAt[j] = seek(x, xAt[j]!, seq);
        if (x[xAt[j]!] === seq) continue next;
      }
      const below = b === 0 ? 0 : (1 << b) - 1;
      let score = 0;
      for (let i = 0; i < nScored; i++) score += idf[i]! * impacts[i]![sRank[i]![w]! + popcount(sBits[i]![w]! & below)]!;
      total++;
      if (after && !better(after.score, after.seq, score, seq)) continue;
      afterCount++;
      keep(top, want, score, seq);
    }
  }
  return { top, total, afterCount };
}
