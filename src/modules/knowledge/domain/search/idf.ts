/**
 * A term's inverse document frequency, BM25's (never negative): ln(1 + (N − df + 0.5) / (df + 0.5)), N the live nodes
 * searched, df those holding the term. Both stores weigh a term's impact (impact.ts) by it.
 */
export function idf(docs: number, docFreq: number): number {
  return Math.log(1 + (docs - docFreq + 0.5) / (docFreq + 0.5));
}
