import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { SearchQuery } from '../../domain/search';
import { assertSameState, type Cursor } from './pg-search-cursor';
import type { LevelTerm } from './pg-search-levels';
import { idfOf, type RankTerm } from './pg-search-rank';
import type { Seen } from './pg-search-cache';

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
 * The statistics statement: migration 12's function (knowledge-statistics-migration.ts), planned once per connection
 * with a generic plan — planning its dozen subqueries per call was more than their execution. Named, so the call
 * itself is parsed once per connection too.
 */
const STATISTICS = {
  name: 'wg_knowledge_search_statistics_call',
  text: `SELECT s.o_w AS w, s.o_n AS n, s.o_terms AS terms, s.o_x AS x, s.o_v AS v, s.o_lex AS lex, s.o_tsq AS tsq, s.o_d AS d
    FROM wg_knowledge_search_statistics($1::text, $2::text[], $3::text[], $4::text[], $5::boolean) s`,
};

export interface Statistics {
  w: string;
  /** The project's last change id and deletion record count now: what a cursor carries (pg-search-cursor.ts). */
  x: string;
  d: string;
  /** The live nodes the idf counts (as of the watermark). */
  nodes: number;
  terms: Array<RankTerm & Pick<LevelTerm, 'levels'>>;
  /** What the statement saw of the project, for the search cache (its posted watermark now, not a cursor's). */
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
 * the SQL path matches with), and the change id and deletion count a cursor carries: a later page whose project
 * has others is refused here (the stale-cursor error), before anything else is read. `withLevels` false leaves out the terms' impact levels (the level walk's, which the
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
    d: string | null;
    lex: Array<string | null> | null;
    tsq: string[] | null;
    terms: Array<{ term: string; docs: number; levels: LevelTerm['levels'] | null }> | null;
  }>(
    STATISTICS,
    [project, words, prefixes, lexemesOf, withLevels],
  );
  const [x, d] = [row?.x ?? '0', row?.d ?? '0'];
  // A later page: refused if the project was rewritten since the first (before any more is read for it).
  if (cursor) assertSameState(cursor, { x, d });
  const w = cursor ? cursor.w : (row?.w ?? '0');
  let nodes = Number(row?.n ?? 0);
  const docs = new Map((row?.terms ?? []).map((t) => [t.term, Number(t.docs)]));
  if (cursor && docs.size) {
    // Nodes added after the first page's watermark: not searched, so not counted either. Only those the statistics
    // statement counted (up to the watermark it read: since migration 14 posted_up_to, so the counts hold exactly
    // those rows): this is another statement, and nodes committed between the two, taken off too, made later pages
    // score with fewer nodes than the first — hits repeated and skipped while a writer added
    // (knowledge-search-paging-live.test.ts). A project's adds take seqs in order under its lock.
    const [added] = await sql.query<{ n: string; terms: Record<string, number> | null }>(
      `SELECT count(*)::text AS n, (SELECT json_object_agg(c.term, c.n) FROM (
           SELECT u.lexeme AS term, count(*) AS n FROM wg_knowledge_nodes y, unnest(y.search) u
           WHERE y.project = $1 AND y.seq > $2::bigint AND y.seq <= $4::bigint AND u.lexeme = ANY($3::text[]) GROUP BY u.lexeme) c) AS terms
       FROM wg_knowledge_nodes x WHERE x.project = $1 AND x.seq > $2::bigint AND x.seq <= $4::bigint`,
      [project, w, [...docs.keys()], row?.w ?? '0'],
    );
    nodes -= Number(added?.n ?? 0);
    for (const [term, n] of Object.entries(added?.terms ?? {})) docs.set(term, Math.max(0, (docs.get(term) ?? 0) - Number(n)));
  }
  const levels = new Map((row?.terms ?? []).map((t) => [t.term, t.levels ?? []]));
  return {
    w,
    x,
    d,
    withLevels,
    nodes,
    terms: [...docs].map(([term, d]) => ({ term, docs: d, idf: idfOf(nodes, d), levels: levels.get(term) ?? [] })),
    seen: { maxSeq: Number(row?.w ?? 0), change: x, version: row?.v ?? '0' },
    lexemes: row?.lex ?? [],
    tsqueries: row?.tsq ?? [],
  };
}
