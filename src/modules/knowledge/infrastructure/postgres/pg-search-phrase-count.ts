import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { QueryItem, SearchQuery } from '../../domain/search';
import { PAIR_CHUNK } from './knowledge-pair-migration';
import type { MatchSql } from './pg-search-rank';

/**
 * Counting a query with phrases from the pair lists (migration 9) instead of reading its matches. A phrase `"a b"`
 * is `'a' <-> 'b'` (websearch_to_tsquery): its nodes in a listed chunk are exactly the pair's offsets there. A phrase
 * of more words (`'a' <-> 'b' <-> 'c'`) holds each of its pairs, so the offsets common to them are a superset, each
 * then checked against the tsquery on its row, newest first, only until the cap is passed. The other items of the
 * query are checked per candidate: a word in its term bitmap (migration 6), a phrase in its pair lists, an exclusion
 * the same way negated. The chunks not listed yet (the project's newest) are counted through GIN; chunks the seqs
 * have passed since the last build are listed first (migration 9's wg_knowledge_pairs_build: the one search per
 * 8,192 new seqs that finds them pays for it).
 *
 * Answers undefined — the caller counts through GIN — for what the lists cannot say: no positive phrase of two or more
 * lexemes, an OR, a prefix, a gap (`'a' <2> 'b'`, a stopword inside the phrase), a word of more than one lexeme.
 */

type Parsed = { kind: 'term'; term: string } | { kind: 'pairs'; pairs: string[] };

/** websearch_to_tsquery's text of one item: `'a'` (a term) or `'a' <-> 'b' <-> …` (adjacent pairs); else undefined. */
export function parseItemQuery(text: string): Parsed | undefined {
  const lexemes: string[] = [];
  const re = /^'([^'\\]+)'(?: <-> |$)/;
  let rest = text;
  while (rest.length) {
    const m = re.exec(rest);
    if (!m) return undefined;
    lexemes.push(m[1]!);
    rest = rest.slice(m[0].length);
    if (!rest.length && m[0].endsWith(' ')) return undefined;
  }
  if (lexemes.length === 0) return undefined;
  if (lexemes.length === 1) return { kind: 'term', term: lexemes[0]! };
  return { kind: 'pairs', pairs: lexemes.slice(1).map((b, i) => `${lexemes[i]} ${b}`) };
}

/** The text tsqueryExpr hands websearch_to_tsquery for an item (pg-search.ts). */
export const itemText = (it: Exclude<QueryItem, { kind: 'prefix' }>) => (it.kind === 'word' ? it.word : `"${it.words.join(' ')}"`);

export interface PhraseCount {
  total: number;
  exact: boolean;
}

/**
 * The number of live matches with seq ≤ `watermark` of `query` (no filters: the caller's to rule out), up to `cap`
 * (past it `{ total: cap, exact: false }`), or undefined when the pair lists cannot answer it.
 */
export async function countPhrases(
  sql: SqlRunner,
  project: string,
  query: SearchQuery,
  match: MatchSql & { w?: string },
  watermark: string,
  cap: number,
): Promise<PhraseCount | undefined> {
  if (!query.groups.some((g) => !g.negated && g.items.some((i) => i.kind === 'phrase'))) return undefined;
  const items: Array<{ neg: boolean; item: Exclude<QueryItem, { kind: 'prefix' }> }> = [];
  for (const g of query.groups) {
    const it = g.items[0]!;
    if (g.items.length !== 1 || it.kind === 'prefix') return undefined;
    items.push({ neg: g.negated, item: it });
  }
  const [head] = await sql.query<{ texts: string[]; below: string | null }>(
    `SELECT ARRAY(SELECT websearch_to_tsquery('english', t)::text FROM unnest($2::text[]) WITH ORDINALITY u(t, i) ORDER BY i) AS texts,
       (SELECT below::text FROM wg_knowledge_pair_chunks WHERE project = $1) AS below`,
    [project, items.map((x) => itemText(x.item))],
  );
  const parsed = (head?.texts ?? []).map(parseItemQuery);
  if (parsed.length !== items.length || parsed.some((p) => p === undefined)) return undefined;
  const driver = parsed.findIndex((p, i) => !items[i]!.neg && p!.kind === 'pairs');
  if (driver < 0) return undefined;
  let below = BigInt(head?.below ?? '0');
  if (BigInt(watermark) / BigInt(PAIR_CHUNK) > below) {
    // Chunks the seqs have passed and no build has listed yet: list the oldest now (one a call, migration 11; skipped
    // while a writer holds the project's lock); the ones still due are counted through GIN below.
    const [built] = await sql.query<{ below: string | null }>(
      `SELECT wg_knowledge_pairs_build($1)::text AS below`,
      [project],
    );
    if (built?.below) below = BigInt(built.below);
  }

  // The chunks not listed yet, newest: through GIN, up to the cap.
  // The match's params (a placeholder of the watermark among them, or one added), as every statement here takes them.
  const base = [...match.params];
  const w = match.w ?? (base.push(watermark), `$${base.length}`);
  const params = [...base, (below * BigInt(PAIR_CHUNK)).toString(), cap + 1];
  const n = params.length;
  const [fresh] = await sql.query<{ n: string }>(
    `WITH tq AS (SELECT ${match.tsq} AS q)
     SELECT count(*)::text AS n FROM (SELECT 1 FROM wg_knowledge_nodes n, tq
       WHERE n.project = $1 AND n.seq >= $${n - 1}::bigint AND n.seq <= ${w}::bigint AND n.search @@ tq.q LIMIT $${n}) c`,
    params,
  );
  const unlisted = Number(fresh?.n ?? 0);
  if (unlisted > cap) return { total: cap, exact: false };
  if (below === 0n) return { total: unlisted, exact: true };

  const drive = parsed[driver] as { kind: 'pairs'; pairs: string[] };
  const keys = { item: [] as number[], neg: [] as boolean[], term: [] as Array<string | null>, pair: [] as Array<string | null> };
  let exact = drive.pairs.length === 1;
  parsed.forEach((p, i) => {
    if (i === driver) return;
    const parts = p!.kind === 'term' ? [{ term: p!.term, pair: null }] : p!.pairs.map((pair) => ({ term: null, pair }));
    if (parts.length > 1) exact = false;
    for (const x of parts) {
      keys.item.push(i);
      keys.neg.push(items[i]!.neg);
      keys.term.push(x.term);
      keys.pair.push(x.pair);
    }
  });
  const positives = new Set(keys.item.filter((_, k) => !keys.neg[k])).size;
  const listed = `WITH cand AS MATERIALIZED (
       SELECT s.chunk, e FROM wg_knowledge_pair_seqs s, unnest(s.seqs) e
       WHERE s.project = $1 AND s.pair = ANY($2::text[] COLLATE "C") AND s.chunk < $3::bigint AND s.chunk * ${PAIR_CHUNK} + e <= $4::bigint
       GROUP BY s.chunk, e HAVING count(*) = cardinality($2::text[])),
     keys AS MATERIALIZED (SELECT k.item, k.neg, k.term COLLATE "C" AS term, k.pair COLLATE "C" AS pair
       FROM unnest($5::int[], $6::bool[], $7::text[], $8::text[]) k(item, neg, term, pair)),
     need AS (SELECT item, bool_or(neg) AS neg, count(*) AS need FROM keys GROUP BY item),
     tb AS MATERIALIZED (SELECT b.term, b.chunk, b.bits FROM wg_knowledge_term_bits b
       WHERE b.project = $1 AND b.term IN (SELECT term FROM keys WHERE term IS NOT NULL) AND b.chunk < $3::bigint),
     ps AS MATERIALIZED (SELECT s.pair, s.chunk, s.seqs FROM wg_knowledge_pair_seqs s
       WHERE s.project = $1 AND s.pair IN (SELECT pair FROM keys WHERE pair IS NOT NULL) AND s.chunk < $3::bigint),
     hit AS (
       SELECT c.chunk, c.e, k.item FROM cand c JOIN tb ON tb.chunk = c.chunk JOIN keys k ON k.term = tb.term WHERE get_bit(tb.bits, c.e) = 1
       UNION ALL
       SELECT c.chunk, c.e, k.item FROM cand c JOIN ps ON ps.chunk = c.chunk JOIN keys k ON k.pair = ps.pair WHERE c.e = ANY(ps.seqs)),
     held AS (SELECT h.chunk, h.e, h.item FROM hit h GROUP BY 1, 2, 3 HAVING count(*) = (SELECT need FROM need WHERE need.item = h.item)),
     ok AS (SELECT c.chunk, c.e FROM cand c LEFT JOIN held h ON h.chunk = c.chunk AND h.e = c.e LEFT JOIN need d ON d.item = h.item
       GROUP BY c.chunk, c.e HAVING count(*) FILTER (WHERE NOT d.neg) = $9 AND count(*) FILTER (WHERE d.neg) = 0)`;
  const args = [project, [...new Set(drive.pairs)], below.toString(), watermark, keys.item, keys.neg, keys.term, keys.pair, positives];
  if (exact) {
    const [row] = await sql.query<{ n: string }>(`${listed} SELECT count(*)::text AS n FROM ok`, args);
    const total = unlisted + Number(row?.n ?? 0);
    return total > cap ? { total: cap, exact: false } : { total, exact: true };
  }
  // A superset: each candidate's row checked, newest first, until the cap is passed.
  const seqs = (await sql.query<{ seq: string }>(`${listed} SELECT (chunk * ${PAIR_CHUNK} + e)::text AS seq FROM ok ORDER BY chunk DESC, e DESC`, args)).map((r) => r.seq);
  let total = unlisted;
  for (let i = 0; i < seqs.length && total <= cap; i += VERIFY_BATCH) {
    const p = [...base, seqs.slice(i, i + VERIFY_BATCH)];
    const [row] = await sql.query<{ n: string }>(
      `WITH tq AS (SELECT ${match.tsq} AS q)
       SELECT count(*)::text AS n FROM wg_knowledge_nodes n, tq
       WHERE n.project = $1 AND n.seq = ANY($${p.length}::bigint[]) AND n.seq <= ${w}::bigint AND n.search @@ tq.q`,
      p,
    );
    total += Number(row?.n ?? 0);
  }
  return total > cap ? { total: cap, exact: false } : { total, exact: true };
}

/** Candidates of a longer phrase checked on their rows this many at a time. */
const VERIFY_BATCH = 2048;
