/**
 * BM25F-style scoring shared by the file index (and the reference the PostgreSQL ranking is checked against): a
 * term's frequency counts by field — thought 1, tags 0.4, artifact names and paths 0.2 (PostgreSQL's default weights
 * of A, B and C) — saturates (k1) and is normalized by the document's length against the average (b).
 */
export const FIELD_WEIGHTS = { thought: 1, tags: 0.4, artifacts: 0.2 } as const;
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** Inverse document frequency (BM25's, never negative). */
export function idf(docs: number, docFreq: number): number {
  return Math.log(1 + (docs - docFreq + 0.5) / (docFreq + 0.5));
}

/** BM25's length normalization of a document of this (weighted) length: K1 × (1 − b + b × length / average). */
export function bm25Norm(length: number, avgLength: number): number {
  return BM25_K1 * (1 - BM25_B + (BM25_B * length) / (avgLength || 1));
}

/** One term's contribution from its weighted frequency and the document's {@link bm25Norm} (> 0 frequencies only). */
export function scoreWithNorm(termIdf: number, weightedTf: number, norm: number): number {
  return (termIdf * weightedTf * (BM25_K1 + 1)) / (weightedTf + norm);
}

/** One term's contribution: `weightedTf` is Σ field weight × occurrences, `length` the document's word count. */
export function termScore(termIdf: number, weightedTf: number, length: number, avgLength: number): number {
  if (weightedTf <= 0) return 0;
  return scoreWithNorm(termIdf, weightedTf, bm25Norm(length, avgLength));
}
