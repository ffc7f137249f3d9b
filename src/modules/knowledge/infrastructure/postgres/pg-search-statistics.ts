import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { SearchQuery } from '../../domain/search';
import type { Cursor } from './pg-search-cursor';
import type { LevelTerm } from './pg-search-levels';
import { idfOf, type RankTerm } from './pg-search-rank';
import type { Seen } from './pg-search-cache';

/** A prefix is scored over at most this many of its terms (the first in order), as the files' MAX_PREFIX_TERMS. */
const MAX_PREFIX_TERMS = 1000;

/** The words a query scores (positive words and phrase words) and its prefixes, folded as the domain parse left them. */
function positiveWords(query: SearchQuery): { words: string[]; prefixes: string[] } {
  const words: string[] = [];
  const prefixes: string[] = [];
  for (const g of query.groups) {
    if (g.negated) continue;
    for (const it of g.items) {
      if (it.kind === 'prefix') prefixes.push(it.word);
      else if (it.kind === 'word') words.push(it.word);
      else words.push(...it.words);
    }
  }
  return { words, prefixes };
}

/**
 * The statistics statement's text, with or without the terms' impact levels. Named (prepared once per connection):
 * planning this statement of a dozen subqueries was most of its cost — 1.45 ms of a warm cached phrase search's 3.5.
 */
function statisticsText(withLevels: boolean): string {
  return `SELECT (SELECT max(seq) FROM wg_knowledge_nodes WHERE project = $1)::text AS w,
       (SELECT nodes FROM wg_knowledge_projects WHERE project = $1)::text AS n,
       (SELECT json_agg(json_build_object('term', x.term, 'docs', coalesce(t.docs, 0), 'levels', ${
         withLevels
           ? `(SELECT json_agg(json_build_object('level', l.level, 'docs', l.docs, 'max', l.max_impact::text) ORDER BY l.level)
             FROM wg_knowledge_term_levels l WHERE l.project = $1 AND l.term = x.term)`
           : 'NULL'
       }) ORDER BY x.term) FROM (
          SELECT DISTINCT u.lexeme AS term FROM unnest($2::text[]) w, unnest(to_tsvector('english', wg_knowledge_words(w))) u
          UNION
          SELECT e.term FROM unnest($3::text[]) w, unnest(to_tsvector('english', wg_knowledge_words(w))) u,
            LATERAL (SELECT t.term FROM wg_knowledge_terms t WHERE t.project = $1 AND t.term >= u.lexeme COLLATE "C"
                     AND t.term < (u.lexeme || chr(1114111)) COLLATE "C" AND t.docs > 0 ORDER BY t.term LIMIT ${MAX_PREFIX_TERMS}) e
        ) x LEFT JOIN wg_knowledge_terms t ON t.project = $1 AND t.term = x.term) AS terms,
       (SELECT max(id) FROM wg_knowledge_changes WHERE project = $1)::text AS x,
       (SELECT version FROM wg_knowledge_projects WHERE project = $1)::text AS v,
       (SELECT json_agg((SELECT CASE WHEN count(*) = 1 AND websearch_to_tsquery('english', k.word) = quote_literal(min(u.lexeme))::tsquery
                          THEN min(u.lexeme) END FROM unnest(to_tsvector('english', wg_knowledge_words(k.word))) u) ORDER BY k.i)
        FROM unnest($4::text[]) WITH ORDINALITY k(word, i)) AS lex,
       ARRAY(SELECT websearch_to_tsquery('english', k.word)::text FROM unnest($4::text[]) WITH ORDINALITY k(word, i) ORDER BY k.i) AS tsq`;
}
const STATISTICS = { name: 'wg_knowledge_search_statistics', text: statisticsText(true) };
const STATISTICS_WITHOUT_LEVELS = { name: 'wg_knowledge_search_statistics_nolevels', text: statisticsText(false) };

export interface Statistics {
  w: string;
  /** The live nodes the idf counts (as of the watermark). */
  nodes: number;
  terms: Array<RankTerm & Pick<LevelTerm, 'levels'>>;
  /** What the statement saw of the project, for the search cache (the highest seq now, not a cursor's). */
  seen: Seen;
  /** Whether `terms` carry their impact levels (statistics' `withLevels`). */
  withLevels: boolean;
  /** Per word of `lexemesOf`, its one lexeme — null for a stopword, several lexemes, or a tsquery of other shape. */
  lexemes: Array<string | null>;
  /** Per entry of `lexemesOf`, websearch_to_tsquery's text of it (a phrase's `'a' <-> 'b'`). */
  tsqueries: string[];
}

/**
 * The watermark, the live node count and the query's positive terms with their document counts, as of the watermark
 * (a later page: the nodes added since the first are taken off again, so every page scores alike). The same
 * statement reads what the search cache compares its lists with (highest seq, last change id, version) and, for the
 * words `lexemesOf`, the one lexeme each stands for (to_tsvector of the folded word, checked equal to the tsquery
 * the SQL path matches with). `withLevels` false leaves out the terms' impact levels (the level walk's, which the
 * cache path does not use: a query the cache may answer reads them only if it falls back).
 */
export async function statistics(
  sql: SqlRunner,
  project: string,
  query: SearchQuery,
  cursor: Cursor | undefined,
  lexemesOf: readonly string[] = [],
  withLevels = true,
): Promise<Statistics> {
  const { words, prefixes } = positiveWords(query);
  const [row] = await sql.query<{
    w: string | null;
    n: string | null;
    x: string | null;
    v: string | null;
    lex: Array<string | null> | null;
    tsq: string[] | null;
    terms: Array<{ term: string; docs: number; levels: LevelTerm['levels'] | null }> | null;
  }>(
    withLevels ? STATISTICS : STATISTICS_WITHOUT_LEVELS,
    [project, words, prefixes, lexemesOf],
  );
  const w = cursor ? cursor.w : (row?.w ?? '0');
  let nodes = Number(row?.n ?? 0);
  const docs = new Map((row?.terms ?? []).map((t) => [t.term, Number(t.docs)]));
  if (cursor && docs.size) {
    // Nodes added after the first page's watermark: not searched, so not counted either.
    const [added] = await sql.query<{ n: string; terms: Record<string, number> | null }>(
      `SELECT count(*)::text AS n, (SELECT json_object_agg(c.term, c.n) FROM (
           SELECT u.lexeme AS term, count(*) AS n FROM wg_knowledge_nodes y, unnest(y.search) u
           WHERE y.project = $1 AND y.seq > $2::bigint AND u.lexeme = ANY($3::text[]) GROUP BY u.lexeme) c) AS terms
       FROM wg_knowledge_nodes x WHERE x.project = $1 AND x.seq > $2::bigint`,
      [project, w, [...docs.keys()]],
    );
    nodes -= Number(added?.n ?? 0);
    for (const [term, n] of Object.entries(added?.terms ?? {})) docs.set(term, Math.max(0, (docs.get(term) ?? 0) - Number(n)));
  }
  const levels = new Map((row?.terms ?? []).map((t) => [t.term, t.levels ?? []]));
  return {
    w,
    withLevels,
    nodes,
    terms: [...docs].map(([term, d]) => ({ term, docs: d, idf: idfOf(nodes, d), levels: levels.get(term) ?? [] })),
    seen: { maxSeq: Number(row?.w ?? 0), change: row?.x ?? '0', version: row?.v ?? '0' },
    lexemes: row?.lex ?? [],
    tsqueries: row?.tsq ?? [],
  };
}
