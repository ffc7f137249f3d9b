import type { SeqList } from './pg-search-list-source';
import { denseOf, hasSeq, indexOf, popcount, wordMaxima, type Dense } from './pg-search-dense';

/** A scored required list and its term's idf (one positive term of the query, in the statistics' order). */
export interface ScoredList {
  list: SeqList & { impacts: Float32Array };
  idf: number;
}

/** What the cache evaluates: every match is in all of `scored` and `required`, in none of `excluded`, seq ≤ `upTo`. */
export interface Intersection {
  /** In the order the SQL path sums them (statistics() terms, `st.i`). */
  scored: readonly ScoredList[];
  /** Unscored required lists (a phrase's pair list). */
  required: readonly Int32Array[];
  excluded: readonly Int32Array[];
  upTo: number;
  /** Only matches after this one (a cursor's last hit) are kept. */
  after?: { score: number; ord: bigint };
  want: number;
}

export interface IntersectionResult {
  /** The best `want` matches after `after`, best first (score desc, seq desc: compareMatches). */
  top: Array<{ seq: number; score: number }>;
  /** Every match up to `upTo`. */
  total: number;
  /** The matches after `after` (all of them when there is no cursor) — at least the page's, since words that cannot
   * reach the page are counted in `total` only. */
  afterCount: number;
}

/** The first index ≥ `from` whose seq is ≥ `seq` (galloping, then binary search). */
function seek(a: Int32Array, from: number, seq: number): number {
  let lo = from;
  let step = 1;
  let hi = from;
  while (hi < a.length && a[hi]! < seq) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > a.length) hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Is `a` before `b` in compareMatches' order (higher score, then higher seq)? */
const better = (aScore: number, aSeq: number, bScore: number, bSeq: number) => aScore > bScore || (aScore === bScore && aSeq > bSeq);

/** A list as the intersection reads it: its bitmap when dense (pg-search-dense.ts), else searched forward. */
interface Member {
  seqs: Int32Array;
  dense: Dense | undefined;
  /** The sparse search's position (seqs are visited ascending). */
  at: number;
}

/** Whether `m` holds `seq`, leaving `m.at` on it when it does (a sparse list: galloping forward). */
function holds(m: Member, seq: number): boolean {
  if (m.dense) return hasSeq(m.dense, seq);
  m.at = seek(m.seqs, m.at, seq);
  return m.at < m.seqs.length && m.seqs[m.at] === seq;
}

/**
 * The intersection, scored as the SQL path scores (Σ idf × impact, left to right from 0 in the given order, float8
 * like SQL's sum ordered by `st.i`). When a required list is sparse the shortest sparse one drives (every other list
 * checked per seq: a bit, or a forward search); when all are dense their bitmaps are ANDed (AND NOT dense exclusions)
 * a word at a time and only the set bits visited. The page is kept as a sorted array (it is small: a candidate worse
 * than the kept worst is one comparison).
 */
export function intersect(q: Intersection): IntersectionResult {
  const req: Member[] = [...q.scored.map((s) => s.list.seqs), ...q.required].map((seqs) => ({ seqs, dense: denseOf(seqs), at: 0 }));
  if (req.length === 0) return { top: [], total: 0, afterCount: 0 };
  const exc: Member[] = q.excluded.map((seqs) => ({ seqs, dense: denseOf(seqs), at: 0 }));
  const nScored = q.scored.length;
  const idf = q.scored.map((s) => s.idf);
  const impacts = q.scored.map((s) => s.list.impacts);
  const afterScore = q.after?.score ?? Infinity;
  const afterSeq = q.after ? Number(q.after.ord) : Infinity;
  const top: Array<{ seq: number; score: number }> = [];
  let total = 0;
  let afterCount = 0;

  /** A seq in every required list (`driver`'s index known) and in no exclusion: scored and kept if it ranks. */
  const visit = (seq: number, driver: Member | undefined, k: number) => {
    for (const x of exc) if (holds(x, seq)) return;
    let score = 0;
    for (let i = 0; i < nScored; i++) {
      const m = req[i]!;
      const p = m === driver ? k : m.dense ? indexOf(m.dense, seq) : m.at;
      score += idf[i]! * impacts[i]![p]!;
    }
    total++;
    if (q.after && !better(afterScore, afterSeq, score, seq)) return;
    afterCount++;
    if (top.length === q.want) {
      const worst = top[top.length - 1]!;
      if (!better(score, seq, worst.score, worst.seq)) return;
      top.pop();
    }
    let at = top.length;
    while (at > 0 && better(score, seq, top[at - 1]!.score, top[at - 1]!.seq)) at--;
    top.splice(at, 0, { seq, score });
  };

  const sparse = req.filter((m) => !m.dense);
  if (sparse.length) {
    const driver = sparse.reduce((a, b) => (b.seqs.length < a.seqs.length ? b : a));
    const d = driver.seqs;
    outer: for (let k = 0; k < d.length; k++) {
      const seq = d[k]!;
      if (seq > q.upTo) break;
      for (const m of req) if (m !== driver && !holds(m, seq)) continue outer;
      visit(seq, driver, k);
    }
  } else {
    // All dense: AND a word at a time; each set bit's index in a scored list is its rank (no search).
    const bits = req.map((m) => m.dense!.bits);
    const sBits = req.slice(0, nScored).map((m) => m.dense!.bits);
    const sRank = req.slice(0, nScored).map((m) => m.dense!.rank);
    const xbits = exc.filter((m) => m.dense).map((m) => m.dense!.bits);
    const xSparse = exc.filter((m) => !m.dense);
    const last = Math.min(q.upTo >>> 5, ...bits.map((b) => b.length - 1));
    const hasAfter = q.after !== undefined;
    const sMax = q.scored.map((s) => wordMaxima(s.list.seqs, s.list.impacts)!);
    for (let w = 0; w <= last && q.upTo >= 0; w++) {
      let word = bits[0]![w]!;
      for (let i = 1; i < bits.length && word; i++) word &= bits[i]![w]!;
      for (let i = 0; i < xbits.length && word; i++) if (w < xbits[i]!.length) word &= ~xbits[i]![w]!;
      if (w === q.upTo >>> 5 && (q.upTo & 31) !== 31) word &= (1 << ((q.upTo & 31) + 1)) - 1;
      if (word && top.length === q.want && xSparse.length === 0) {
        // The page is full: a word whose bound (Σ idf × its highest impacts; float rounding is monotone, so it holds
        // every score in the word) is below the page's worst is only counted. Seqs ascend: a tie would rank, so it is scored.
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
        for (const x of xSparse) if (holds(x, seq)) continue next;
        const below = b === 0 ? 0 : (1 << b) - 1;
        let score = 0;
        for (let i = 0; i < nScored; i++) score += idf[i]! * impacts[i]![sRank[i]![w]! + popcount(sBits[i]![w]! & below)]!;
        total++;
        if (hasAfter && !better(afterScore, afterSeq, score, seq)) continue;
        afterCount++;
        if (top.length === q.want) {
          const worst = top[top.length - 1]!;
          if (!better(score, seq, worst.score, worst.seq)) continue;
          top.pop();
        }
        let at = top.length;
        while (at > 0 && better(score, seq, top[at - 1]!.score, top[at - 1]!.seq)) at--;
        top.splice(at, 0, { seq, score });
      }
    }
  }
  return { top, total, afterCount };
}
