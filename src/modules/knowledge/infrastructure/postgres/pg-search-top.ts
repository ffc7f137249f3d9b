import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { StoredKnowledgeNode } from '../../domain/knowledge-node';
import { levelTries, type LevelTerm } from './pg-search-levels';
import { termParams, type MatchSql, type RankedMatch, type RankTerm } from './pg-search-rank';

/**
 * The best `want` live matches of a query whose every match holds all of `terms` (words and phrases ANDed, with
 * or without exclusions), found through the impact levels (pg-search-levels.ts): per try, one statement ANDs the
 * level bitmaps of the try's minimal combinations, ORs them per chunk, and scores only the nodes set there — with the
 * tsquery checked on each (phrases, exclusions) and the score of scoreEveryMatch (same SQL, same float8 sum) — and
 * answers the best `want` with their nodes and how many reached θ. `want` of them at θ or above: the answer (no
 * other node can reach θ). Fewer: the next, lower θ. Undefined when there is nothing to plan (the caller scores every
 * match). `passRate`: levelTries'.
 */
export async function walkLevels(
  sql: SqlRunner,
  match: MatchSql & { w: string },
  terms: ReadonlyArray<RankTerm & Pick<LevelTerm, 'levels'>>,
  nodes: number,
  want: number,
  passRate = 1,
): Promise<RankedMatch[] | undefined> {
  const tries = levelTries(terms, nodes, want, passRate);
  if (!tries?.length) return undefined;
  for (const t of tries) {
    const params = [...match.params];
    const st = termParams(terms, params);
    const vec: number[] = [];
    const term: string[] = [];
    const level: number[] = [];
    const drive: boolean[] = [];
    const ops: number[] = [];
    t.combinations.forEach((c, i) => {
      // Level 0 is the term's presence, which the tsquery checks on every candidate anyway: only a combination of
      // nothing but level 0 reads a bitmap for it (its smallest term's).
      const used = c.map((l, j) => j).filter((j) => c[j]! > 0 || (c.every((l) => l === 0) && t.drive[i] === j));
      for (const j of used) {
        vec.push(i);
        term.push(terms[j]!.term);
        level.push(c[j]!);
        drive.push(t.drive[i] === j);
        ops.push(used.length);
      }
    });
    params.push(vec, term, level, drive, ops, String(t.theta), want);
    const n = params.length;
    const bits = (alias: string, on: string, cols = '@.chunk, @.bits') =>
      `SELECT ${cols.replace(/@/g, 't')} FROM wg_knowledge_term_bits t
         WHERE ${alias}.level = 0 AND t.project = $1 AND t.term = ${alias}.term COLLATE "C" AND ${on.replace(/@/g, 't')}
       UNION ALL
       SELECT ${cols.replace(/@/g, 'l')} FROM wg_knowledge_level_bits l
         WHERE ${alias}.level > 0 AND l.project = $1 AND l.term = ${alias}.term COLLATE "C" AND l.level = ${alias}.level AND ${on.replace(/@/g, 'l')}`;
    // Each combination is read only in the chunks of its smallest bitmap (vc); every bitmap a chunk needs, once (ob).
    const rows = await sql.query<{ seq: string; score: string; node: StoredKnowledgeNode; reached: string }>(
      `WITH tq AS (SELECT ${match.tsq} AS q), st AS (${st}),
       v AS MATERIALIZED (SELECT * FROM unnest($${n - 6}::int[], $${n - 5}::text[], $${n - 4}::int[], $${n - 3}::bool[], $${n - 2}::int[]) AS v(vec, term, level, drive, ops)),
       vc AS MATERIALIZED (SELECT v.vec, x.chunk FROM v CROSS JOIN LATERAL (${bits('v', `@.chunk <= ${match.w}::bigint / 8192`, '@.chunk')}) x WHERE v.drive),
       need AS MATERIALIZED (SELECT DISTINCT v.term, v.level, vc.chunk FROM vc JOIN v ON v.vec = vc.vec),
       ob AS MATERIALIZED (SELECT need.term, need.level, b.chunk, b.bits FROM need CROSS JOIN LATERAL (${bits('need', '@.chunk = need.chunk')}) b),
       a AS (SELECT v.vec, vc.chunk, bit_and(ob.bits) AS bits FROM vc JOIN v ON v.vec = vc.vec
               JOIN ob ON ob.term = v.term AND ob.level = v.level AND ob.chunk = vc.chunk
             GROUP BY v.vec, vc.chunk HAVING count(*) = max(v.ops)),
       c AS (SELECT chunk, bit_or(bits) AS bits FROM a GROUP BY chunk),
       s AS (SELECT c.chunk * 8192 + p.p AS seq FROM c CROSS JOIN LATERAL wg_knowledge_bit_positions(c.bits) p(p)),
       h AS (SELECT n.seq, (SELECT sum(st.idf * ts_rank(n.search, st.q) ORDER BY st.i) FROM st) AS score, n.node
             FROM s JOIN wg_knowledge_nodes n ON n.project = $1 AND n.seq = s.seq, tq
             WHERE n.search @@ tq.q AND n.seq <= ${match.w}::bigint${match.filters})
       SELECT h.seq::text AS seq, h.score::text AS score, h.node, count(*) FILTER (WHERE h.score >= $${n - 1}::float8) OVER ()::text AS reached
       FROM h ORDER BY h.score DESC, h.seq DESC LIMIT $${n}`,
      params,
    );
    const reached = rows.length ? Number(rows[0]!.reached) : 0;
    if (reached >= want || t.last) return rows.map((r) => ({ ord: BigInt(r.seq), score: Number(r.score), deleted: false, node: r.node }));
  }
  return undefined;
}
