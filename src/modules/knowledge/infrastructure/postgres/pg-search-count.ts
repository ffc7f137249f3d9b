import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { SearchQuery } from '../../domain/search';

/** A prefix is counted through the bitmaps when it spans at most this many terms (else the caller counts through GIN). */
const MAX_COUNTED_PREFIX_TERMS = 1000;
/** Seqs per bitmap chunk (migration 6's wg_knowledge_bit). */
const CHUNK = 8192;

/**
 * The exact number of a query's live matches with seq ≤ `watermark`, from the term bitmaps (migration 6), without
 * reading a match: per chunk of seqs, the OR of each group's terms' bits, AND over the positive groups, AND NOT the
 * excluded ones, bit_count. For a query of words and prefixes (OR, exclusions) only; undefined for a phrase (the bits
 * have no positions), or when a word folds to other than one lexeme or a prefix spans more than
 * MAX_COUNTED_PREFIX_TERMS terms — the caller then counts through GIN. Filters are the caller's to rule out.
 * `chunks`: only the chunks from `from` and below `below` (countCapped counts the newest first).
 */
export async function countByBits(
  sql: SqlRunner,
  project: string,
  query: SearchQuery,
  watermark: string,
  chunks: { from: number; below?: number } = { from: 0 },
): Promise<number | undefined> {
  const g: number[] = [];
  const neg: boolean[] = [];
  const kind: string[] = [];
  const word: string[] = [];
  for (const [i, group] of query.groups.entries()) {
    for (const it of group.items) {
      if (it.kind === 'phrase') return undefined;
      g.push(i);
      neg.push(group.negated);
      kind.push(it.kind);
      word.push(it.word);
    }
  }
  const positive = query.groups.filter((x) => !x.negated).length;
  const [row] = await sql.query<{ ok: boolean; widest: string; n: string }>(
    `WITH items AS (SELECT * FROM unnest($2::int[], $3::bool[], $4::text[], $5::text[]) WITH ORDINALITY AS i(g, neg, kind, word, i)),
     lex AS (SELECT i.*, ARRAY(SELECT DISTINCT u.lexeme FROM unnest(to_tsvector('english', wg_knowledge_words(i.word))) u) AS lx FROM items i),
     terms AS (
       SELECT l.i, l.g, l.neg, l.lx[1] COLLATE "C" AS term FROM lex l WHERE l.kind = 'word' AND cardinality(l.lx) = 1
       UNION ALL
       SELECT l.i, l.g, l.neg, e.term FROM lex l, LATERAL (SELECT t.term FROM wg_knowledge_terms t WHERE t.project = $1
           AND t.term >= l.lx[1] COLLATE "C" AND t.term < (l.lx[1] || chr(1114111)) COLLATE "C" AND t.docs > 0
           ORDER BY t.term LIMIT ${MAX_COUNTED_PREFIX_TERMS + 1}) e
         WHERE l.kind = 'prefix' AND cardinality(l.lx) = 1
     ),
     grouped AS (
       SELECT b.chunk, t.g, bool_or(t.neg) AS neg, bit_or(b.bits) AS bits FROM terms t
         JOIN wg_knowledge_term_bits b ON b.project = $1 AND b.term = t.term AND b.chunk <= $6::bigint / ${CHUNK}
           AND b.chunk >= $8::bigint AND ($9::bigint IS NULL OR b.chunk < $9::bigint)
       GROUP BY b.chunk, t.g
     ),
     ones AS MATERIALIZED (SELECT repeat('1', ${CHUNK})::bit varying AS b),
     chunks AS (
       SELECT chunk, bit_and(bits) FILTER (WHERE NOT neg) AS pos, bit_or(bits) FILTER (WHERE neg) AS negb,
         count(*) FILTER (WHERE NOT neg) AS npos FROM grouped GROUP BY chunk
     )
     SELECT (SELECT coalesce(bool_and(cardinality(lx) = 1), true) FROM lex) AS ok,
       (SELECT coalesce(max(c), 0) FROM (SELECT count(*) AS c FROM terms GROUP BY i) x)::text AS widest,
       (SELECT coalesce(sum(bit_count(
          CASE WHEN negb IS NULL THEN pos ELSE pos & ~negb END
          & CASE WHEN chunk = $6::bigint / ${CHUNK} THEN ~(ones.b >> (($6::bigint % ${CHUNK})::int + 1)) ELSE ones.b END)), 0)
        FROM chunks, ones WHERE npos = $7)::text AS n`,
    [project, g, neg, kind, word, watermark, positive, chunks.from, chunks.below ?? null],
  );
  if (!row || !row.ok || Number(row.widest) > MAX_COUNTED_PREFIX_TERMS) return undefined;
  return Number(row.n);
}

/**
 * The count of countByBits up to `cap`: the newest chunks first — as many as the query's expected `density` (its
 * share of the nodes) needs for twice the cap — and the older ones only when those hold `cap` or fewer. Past the
 * cap: `{ total: cap, exact: false }` (search_nodes' `totalExact: false`, "at least this many").
 */
export async function countCapped(
  sql: SqlRunner,
  project: string,
  query: SearchQuery,
  watermark: string,
  cap: number,
  density: number,
): Promise<{ total: number; exact: boolean } | undefined> {
  const top = Math.floor(Number(watermark) / CHUNK);
  const span = Math.ceil((2 * (cap + 1)) / (CHUNK * Math.max(density, 1e-6)));
  const from = Math.max(0, top - span + 1);
  const newest = await countByBits(sql, project, query, watermark, { from });
  if (newest === undefined) return undefined;
  if (newest > cap) return { total: cap, exact: false };
  if (from === 0) return { total: newest, exact: true };
  const older = await countByBits(sql, project, query, watermark, { from: 0, below: from });
  const n = newest + (older ?? 0);
  return n > cap ? { total: cap, exact: false } : { total: n, exact: true };
}
