/** A page of matches being filled, best first in compareMatches' order (score desc, then seq desc). */
export type Page = Array<{ seq: number; score: number }>;

/** What the intersection answers (pg-search-intersect.ts; here so its walks need not import it back). */
export interface IntersectionResult {
  /** The best `want` matches after `after`, best first (score desc, seq desc: compareMatches). */
  top: Array<{ seq: number; score: number }>;
  /** Every match up to `upTo`. */
  total: number;
  /** The matches after `after` (all of them when there is no cursor) — at least the page's, and 0 only when none is
   * left after the cursor: matches that cannot reach the page may be counted in `total` only. */
  afterCount: number;
}

/** Is `a` before `b` in compareMatches' order (higher score, then higher seq)? */
export const better = (aScore: number, aSeq: number, bScore: number, bSeq: number) =>
  aScore > bScore || (aScore === bScore && aSeq > bSeq);

/**
 * Puts a match into the page if it ranks among its best `want` (the page stays sorted; it is small, so a candidate
 * worse than the kept worst is one comparison and an insertion a short shift).
 */
export function keep(top: Page, want: number, score: number, seq: number): void {
  if (want <= 0) return;
  if (top.length === want) {
    const worst = top[top.length - 1]!;
    if (!better(score, seq, worst.score, worst.seq)) return;
    top.pop();
  }
  let at = top.length;
  while (at > 0 && better(score, seq, top[at - 1]!.score, top[at - 1]!.seq)) at--;
  top.splice(at, 0, { seq, score });
}
