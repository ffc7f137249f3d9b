/**
 * A term's **impact** in a node: PostgreSQL's `ts_rank(vector, 'term')` with its default weights and normalization 0,
 * computed from the node's occurrence counts of the term per field — what both stores rank by (Σ idf × impact,
 * docs/knowledge-graph.md "Ranking"). PostgreSQL stores it per node and term (knowledge migration 5); the files
 * compute it from the counts their index keeps (segment-format.ts), to the bit.
 *
 * tsrank.c's calc_rank_or, for one query operand: over the lexeme's positions in position order, with w_j the weight
 * of the j-th (0-based), resj = Σ w_j / (j + 1)², wjm the largest weight (the first of equals, at index jm), and
 * rank = (wjm + resj − wjm / (jm + 1)²) / 1.64493406685. The node's vector is setweight(thought, 'A') ||
 * setweight(tags, 'B') || setweight(artifacts, 'C') (knowledge migration 3), so its positions come A's first, then
 * B's, then C's. Every step is C single precision (float weights, float sums; int divisors converted to float) but
 * the division by the double constant, whose double result is rounded to float when stored: each is rounded here
 * with Math.fround where the C code rounds (a float op done in double and rounded once is the float op exactly).
 *
 * PostgreSQL's position limits are applied to the counts: one to_tsvector keeps at most 255 positions of a lexeme
 * (MAXNUMPOS − 1), a concatenation at most 256 (MAXNUMPOS). Not emulated: positions past 16,383 (MAXENTRYPOS − 1)
 * collapse into one there; a node that long is past the search limits (search-limits.ts: 16,000 words), which
 * add_nodes refuses on both stores.
 */

/** ts_rank's default weights (tsrank.c, C floats): A (the thought) 1.0, B (tags) 0.4, C (artifact names and paths) 0.2. */
export const RANK_WEIGHTS = { thought: Math.fround(1.0), tags: Math.fround(0.4), artifacts: Math.fround(0.2) } as const;
/** π² / 6 as tsrank.c writes it: a double constant. */
export const RANK_ZETA2 = 1.64493406685;
/** Positions of a lexeme one to_tsvector keeps (MAXNUMPOS − 1), and a concatenation of vectors (MAXNUMPOS). */
const FIELD_POSITIONS = 255;
const VECTOR_POSITIONS = 256;

const f = Math.fround;

/** Impacts of small counts (each below SMALL), computed on first use: most postings hold a term once or twice. */
const SMALL = 16;
const memo = new Float64Array(SMALL * SMALL * SMALL).fill(NaN);

/** The term's impact in a node holding it `thought`, `tags` and `artifacts` times (0 when it holds none): a float4 value. */
export function termImpact(thought: number, tags: number, artifacts: number): number {
  if (thought < SMALL && tags < SMALL && artifacts < SMALL) {
    const at = (thought * SMALL + tags) * SMALL + artifacts;
    const v = memo[at]!;
    return v === v ? v : (memo[at] = rankOr(thought, tags, artifacts));
  }
  return rankOr(thought, tags, artifacts);
}

function rankOr(thought: number, tags: number, artifacts: number): number {
  const a = Math.min(thought, FIELD_POSITIONS);
  const b = Math.min(tags, FIELD_POSITIONS, VECTOR_POSITIONS - a);
  const c = Math.min(artifacts, FIELD_POSITIONS, VECTOR_POSITIONS - a - b);
  if (a + b + c === 0) return 0;
  let resj = 0;
  let wjm = -1;
  let jm = 0;
  let j = 0;
  const run = (w: number, count: number) => {
    for (let k = 0; k < count; k++, j++) {
      resj = f(resj + f(w / ((j + 1) * (j + 1))));
      if (w > wjm) {
        wjm = w;
        jm = j;
      }
    }
  };
  run(RANK_WEIGHTS.thought, a);
  run(RANK_WEIGHTS.tags, b);
  run(RANK_WEIGHTS.artifacts, c);
  return f(f(f(wjm + resj) - f(wjm / ((jm + 1) * (jm + 1)))) / RANK_ZETA2);
}
