import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { StoredKnowledgeNode } from '../../domain/knowledge-node';
import { idf } from '../../domain/search/idf';

/**
 * The ranking of search_nodes in PostgreSQL: a node's score is Σ idf(t) × impact(t, node) over the query's positive
 * terms, where impact is ts_rank of the node's vector for that one term (migration 5 stores it per node and term in
 * wg_knowledge_postings) and idf BM25's, ln(1 + (N − df + 0.5) / (df + 0.5)). Two ways to find the best hits give the
 * same answer: a query whose matches all contain one term walks that term's postings best first and stops after the
 * page (`walkOneTerm`); any other scores every match (`scoreEveryMatch`). The sum is taken in the same order with the
 * same float8 operations in both (SQL's sum in `i` order, JavaScript's left to right), so the scores are equal bit for bit.
 */

/** One positive term of a query with its statistics as of the search's watermark. */
export interface RankTerm {
  term: string;
  docs: number;
  idf: number;
}

/** A match: its order key (`seq` for a live node, −seq of its deletion record for a deleted one) and its score. */
export interface RankedMatch {
  ord: bigint;
  score: number;
  deleted: boolean;
  /** The node, when the query that found the match read it too. */
  node?: StoredKnowledgeNode;
}

/** Higher score first; on a tie the newer (higher ord) first. */
export function compareMatches(a: { score: number; ord: bigint }, b: { score: number; ord: bigint }): number {
  return b.score - a.score || (a.ord < b.ord ? 1 : a.ord > b.ord ? -1 : 0);
}

/** The SQL parts a ranking query needs: the tsquery, the node filters (over `n.node`), the params they use. */
export interface MatchSql {
  tsq: string;
  filters: string;
  params: unknown[];
}

/** The term's idf over the live nodes (domain/search/idf.ts, the files' own: the two stores' scores are equal to the bit). */
export function idfOf(nodes: number, docs: number): number {
  return idf(Math.max(nodes, docs), docs);
}

/** A float4 as PostgreSQL printed it, as the exact value float8 arithmetic sees. */
export const real = (text: string) => Math.fround(Number(text));

export function termParams(terms: readonly RankTerm[], params: unknown[]): string {
  params.push(terms.map((t) => t.term), terms.map((t) => t.idf));
  return `SELECT s.i, s.idf, quote_literal(s.term)::tsquery AS q FROM unnest($${params.length - 1}::text[], $${params.length}::float8[]) WITH ORDINALITY s(term, idf, i)`;
}

/**
 * The best `want` live matches after `after`, walking the one term's postings best first. Every match contains the
 * term, so its postings in (impact, seq) order are the matches in score order; `verify` (negations, phrases, filters)
 * is checked on the nodes of each batch only. Stops once `want` are found or the postings end. Without a cursor the
 * matches come with their nodes (the page needs no further read).
 */
export async function walkOneTerm(
  sql: SqlRunner,
  project: string,
  term: RankTerm,
  watermark: string,
  want: number,
  after: { score: number; ord: bigint } | undefined,
  verify: MatchSql | undefined,
): Promise<RankedMatch[]> {
  const out: RankedMatch[] = [];
  // No cursor: each batch of postings is read with its nodes in one statement (checked against `verify` there, the
  // node answered only when it passes). After a cursor the postings above it are skipped unread, so the nodes of the
  // rest are checked apart.
  const withNodes = !after;
  let batch = !verify && !after ? want : Math.max(64, 4 * want);
  let from: { impact: string; seq: string } | undefined;
  for (;;) {
    const params: unknown[] = [...(withNodes && verify ? verify.params : [project]), term.term, watermark, batch];
    const [t, w, l] = [params.length - 2, params.length - 1, params.length];
    const keyset = from ? ` AND (p.impact, p.seq) < ($${l + 1}::real, $${l + 2}::bigint)` : '';
    if (from) params.push(from.impact, from.seq);
    // (The text columns are named apart: ORDER BY must sort the real and bigint ones, through the index.)
    const postings = `SELECT p.impact, p.seq FROM wg_knowledge_postings p
       WHERE p.project = $1 AND p.term = $${t} AND p.seq <= $${w}::bigint${keyset} ORDER BY p.impact DESC, p.seq DESC LIMIT $${l}`;
    const ok = verify ? `n.search @@ tq.q${verify.filters}` : 'n.seq IS NOT NULL';
    const rows = await sql.query<{ impact_text: string; seq_text: string; ok?: boolean | null; node?: StoredKnowledgeNode | null }>(
      withNodes
        ? `WITH tq AS (SELECT ${verify ? verify.tsq : 'NULL::tsquery'} AS q)
           SELECT p.impact::text AS impact_text, p.seq::text AS seq_text, (${ok}) AS ok, CASE WHEN ${ok} THEN n.node END AS node
           FROM (${postings}) p LEFT JOIN wg_knowledge_nodes n ON n.project = $1 AND n.seq = p.seq, tq ORDER BY p.impact DESC, p.seq DESC`
        : `SELECT p.impact::text AS impact_text, p.seq::text AS seq_text FROM (${postings}) p ORDER BY p.impact DESC, p.seq DESC`,
      params,
    );
    const candidates: RankedMatch[] = [];
    for (const r of rows) {
      if (withNodes && !r.ok) continue;
      const m: RankedMatch = { ord: BigInt(r.seq_text), score: term.idf * real(r.impact_text), deleted: false, ...(r.node ? { node: r.node } : {}) };
      if (!after || compareMatches(m, after) > 0) candidates.push(m);
    }
    let kept = candidates;
    if (verify && !withNodes && candidates.length) {
      const p = [...verify.params, candidates.map((c) => c.ord.toString())];
      const found = await sql.query<{ seq: string }>(
        `WITH tq AS (SELECT ${verify.tsq} AS q)
         SELECT n.seq::text AS seq FROM wg_knowledge_nodes n, tq
         WHERE n.project = $1 AND n.seq = ANY($${p.length}::bigint[]) AND n.search @@ tq.q${verify.filters}`,
        p,
      );
      const seqs = new Set(found.map((r) => r.seq));
      kept = candidates.filter((c) => seqs.has(c.ord.toString()));
    }
    for (const m of kept) {
      out.push(m);
      if (out.length >= want) return out;
    }
    if (rows.length < batch) return out;
    const last = rows[rows.length - 1]!;
    from = { impact: last.impact_text, seq: last.seq_text };
    batch = Math.min(batch * 4, 16_384);
  }
}

/**
 * The best `want` live matches after `after`, every match scored: the GIN index finds them, ts_rank of each term
 * scores them; `total` counts them all (exact: every one was scored anyway; null when the cursor is past the last).
 * `match.params` starts with the project ($1); the watermark is `match.w` (a placeholder in them).
 */
export async function scoreEveryMatch(
  sql: SqlRunner,
  match: MatchSql & { w: string },
  terms: readonly RankTerm[],
  want: number,
  after: { score: number; ord: bigint } | undefined,
): Promise<{ matches: RankedMatch[]; total: number | null }> {
  const params = [...match.params];
  const st = termParams(terms, params);
  let cond = '';
  if (after) {
    params.push(String(after.score), after.ord.toString());
    cond = ` WHERE (h.score, h.seq) < ($${params.length - 1}::float8, $${params.length}::bigint)`;
  }
  params.push(want);
  // Only (seq, score) go through the window and the sort: the page's nodes are read afterwards.
  const rows = await sql.query<{ seq: string; score: string; total: string }>(
    `WITH tq AS (SELECT ${match.tsq} AS q), st AS (${st})
     SELECT h.seq::text AS seq, h.score::text AS score, h.total::text AS total FROM (
       SELECT m.*, count(*) OVER () AS total FROM (
         SELECT n.seq, (SELECT sum(st.idf * ts_rank(n.search, st.q) ORDER BY st.i) FROM st) AS score
         FROM wg_knowledge_nodes n, tq WHERE n.project = $1 AND n.search @@ tq.q AND n.seq <= ${match.w}::bigint${match.filters}
       ) m
     ) h${cond}
     ORDER BY h.score DESC, h.seq DESC LIMIT $${params.length}`,
    params,
  );
  return {
    matches: rows.map((r) => ({ ord: BigInt(r.seq), score: Number(r.score), deleted: false })),
    total: rows.length ? Number(rows[0]!.total) : after ? null : 0,
  };
}

/** Every deleted node matching (their records are few and not indexed), scored the same way, after `after`; `total` all of them. */
export async function scoreDeleted(
  sql: SqlRunner,
  match: MatchSql,
  terms: readonly RankTerm[],
  after: { score: number; ord: bigint } | undefined,
): Promise<{ matches: RankedMatch[]; total: number }> {
  const params = [...match.params];
  const st = termParams(terms, params);
  const rows = await sql.query<{ seq: string; score: string | null }>(
    `WITH tq AS (SELECT ${match.tsq} AS q), st AS (${st})
     SELECT d.seq::text AS seq, (SELECT sum(st.idf * ts_rank(v.vec, st.q) ORDER BY st.i) FROM st)::text AS score
     FROM wg_knowledge_deleted d CROSS JOIN LATERAL (SELECT d.record->'nodeData' AS node) n
       CROSS JOIN LATERAL (SELECT wg_knowledge_vector(n.node) AS vec) v, tq
     WHERE d.project = $1 AND v.vec @@ tq.q${match.filters}`,
    params,
  );
  const all = rows.map((r) => ({ ord: -BigInt(r.seq), score: Number(r.score ?? 0), deleted: true }));
  return { matches: all.filter((m) => !after || compareMatches(m, after) > 0), total: all.length };
}
