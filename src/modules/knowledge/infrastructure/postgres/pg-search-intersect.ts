import type { SeqList } from './pg-search-list-source';
import { byteMaxima, denseOf, hasSeq, indexOf, type Dense } from './pg-search-dense';
import type { DenseQuery } from './pg-search-dense-query';
import { boundedTop } from './pg-search-dense-top';
import { better, keep, type IntersectionResult } from './pg-search-page';

export type { IntersectionResult } from './pg-search-page';
import { seek } from './pg-search-seek';

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

/** The all-dense walk: per-byte bounds (pg-search-dense-top.ts); the bench passes the per-word one it replaced. */
export type DenseWalk = (q: DenseQuery) => IntersectionResult;

/** How intersect walks: the search's defaults; the bench passes the walks it measures them against. */
export interface IntersectOptions {
  dense?: DenseWalk;
  /** Whether a sparse driver's seqs are bounded before they are scored (true). */
  driverBounds?: boolean;
}

/**
 * The intersection, scored as the SQL path scores (Σ idf × impact, left to right from 0 in the given order, float8
 * like SQL's sum ordered by `st.i`). When a required list is sparse the shortest sparse one drives (every other list
 * checked per seq: a bit, or a forward search) and, once the page is full, a seq whose bound (its own impact where it
 * drives, the 8-seq byte's highest impacts of the dense scored lists: byteMaxima) is strictly below the page's worst is
 * counted, not scored — a phrase's pair list (13,252 seqs at 1,000,000 nodes) driving over dense words; when all are
 * dense `dense` walks their bitmaps (ANDed a word at a time, only the set bits visited).
 */
export function intersect(q: Intersection, options: IntersectOptions = {}): IntersectionResult {
  const dense = options.dense ?? boundedTop;
  const req: Member[] = [...q.scored.map((s) => s.list.seqs), ...q.required].map((seqs) => ({ seqs, dense: denseOf(seqs), at: 0 }));
  if (req.length === 0) return { top: [], total: 0, afterCount: 0 };
  const exc: Member[] = q.excluded.map((seqs) => ({ seqs, dense: denseOf(seqs), at: 0 }));
  const sparse = req.filter((m) => !m.dense);
  if (!sparse.length) {
    return dense({
      bits: req.map((m) => m.dense!.bits),
      scored: q.scored.map((s, i) => ({ seqs: s.list.seqs, dense: req[i]!.dense!, impacts: s.list.impacts, idf: s.idf })),
      excludedBits: exc.filter((m) => m.dense).map((m) => m.dense!.bits),
      excludedSeqs: exc.filter((m) => !m.dense).map((m) => m.seqs),
      upTo: q.upTo,
      ...(q.after ? { after: { score: q.after.score, seq: Number(q.after.ord) } } : {}),
      want: q.want,
    });
  }
  const nScored = q.scored.length;
  const idf = q.scored.map((s) => s.idf);
  const impacts = q.scored.map((s) => s.list.impacts);
  const afterScore = q.after?.score ?? Infinity;
  const afterSeq = q.after ? Number(q.after.ord) : Infinity;
  const top: Array<{ seq: number; score: number }> = [];
  let total = 0;
  let afterCount = 0;
  // The shortest sparse list drives; each of its seqs is checked in the others, scored, kept if it ranks.
  const driver = sparse.reduce((a, b) => (b.seqs.length < a.seqs.length ? b : a));
  const d = driver.seqs;
  const want = q.want;
  // Bounds only when every scored list is the driver or dense (a sparse one's impact is known only once searched).
  const bMax = q.scored.map((s, i) => (req[i] !== driver && req[i]!.dense ? byteMaxima(s.list.seqs, s.list.impacts)! : undefined));
  const bounded = options.driverBounds !== false && want > 0 && req.slice(0, nScored).every((m, i) => m === driver || bMax[i]);
  outer: for (let k = 0; k < d.length; k++) {
    const seq = d[k]!;
    if (seq > q.upTo) break;
    for (const m of req) if (m !== driver && !holds(m, seq)) continue outer;
    for (const x of exc) if (holds(x, seq)) continue outer;
    if (bounded && top.length === want) {
      let bound = 0;
      for (let i = 0; i < nScored; i++) bound += idf[i]! * (req[i] === driver ? impacts[i]![k]! : bMax[i]![seq >>> 3]!);
      if (bound < top[want - 1]!.score) {
        total++;
        continue;
      }
    }
    let score = 0;
    for (let i = 0; i < nScored; i++) {
      const m = req[i]!;
      const p = m === driver ? k : m.dense ? indexOf(m.dense, seq) : m.at;
      score += idf[i]! * impacts[i]![p]!;
    }
    total++;
    if (q.after && !better(afterScore, afterSeq, score, seq)) continue;
    afterCount++;
    keep(top, want, score, seq);
  }
  return { top, total, afterCount: q.after ? afterCount : total };
}
