import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { KnowledgeSearchPage, KnowledgeSearchQuery } from '../../application/ports/knowledge-store';
import type { QueryItem, SearchQuery } from '../../domain/search';
import type { StoredKnowledgeNode } from '../../domain/knowledge-node';
import { decodeCursor, encodeCursor, type Cursor } from './pg-search-cursor';
import { oneWordFirstPage } from './pg-search-one-word';
import { countCapped } from './pg-search-count';
import { countPhrases, type PhraseCount } from './pg-search-phrase-count';
import type { LevelTerm } from './pg-search-levels';
import { walkLevels } from './pg-search-top';
import { compareMatches, idfOf, scoreDeleted, scoreEveryMatch, walkOneTerm, type MatchSql, type RankedMatch, type RankTerm } from './pg-search-rank';

/**
 * search_nodes in PostgreSQL: the parsed query (domain/search/search-query.ts, the files' parse) becomes a tsquery —
 * each word and phrase through websearch_to_tsquery('english', …), each prefix through to_tsquery('english', 'w:*')
 * (websearch syntax has none) — matched against the generated `search` column (GIN index). Ranking: pg-search-rank.ts
 * (Σ idf × ts_rank per term, default weights thought A 1.0, tags B 0.4, artifacts C 0.2 as the files' FIELD_WEIGHTS,
 * no length normalization: more occurrences rank higher, as BM25 does on short texts). Pages: score then seq, newest
 * first on ties; the cursor keeps the first page's highest seq, so later pages leave out nodes added since and score
 * with the statistics of the nodes up to it.
 */
export function tsqueryExpr(query: SearchQuery, params: unknown[]): string {
  const item = (it: QueryItem): string => {
    if (it.kind === 'prefix') {
      params.push(`${it.word}:*`);
      return `to_tsquery('english', $${params.length})`;
    }
    params.push(it.kind === 'word' ? it.word : `"${it.words.join(' ')}"`);
    return `websearch_to_tsquery('english', $${params.length})`;
  };
  return query.groups
    .map((g) => {
      const alt = g.items.map(item).join(' || ');
      return g.negated ? `!!(${alt})` : `(${alt})`;
    })
    .join(' && ');
}

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
 * The watermark, the live node count and the query's positive terms with their document counts, as of the watermark
 * (a later page: the nodes added since the first are taken off again, so every page scores alike).
 */
async function statistics(sql: SqlRunner, project: string, query: SearchQuery, cursor: Cursor | undefined): Promise<Statistics> {
  const { words, prefixes } = positiveWords(query);
  const [row] = await sql.query<{ w: string | null; n: string | null; terms: Array<{ term: string; docs: number; levels: LevelTerm['levels'] | null }> | null }>(
    `SELECT (SELECT max(seq) FROM wg_knowledge_nodes WHERE project = $1)::text AS w,
       (SELECT nodes FROM wg_knowledge_projects WHERE project = $1)::text AS n,
       (SELECT json_agg(json_build_object('term', x.term, 'docs', coalesce(t.docs, 0), 'levels',
            (SELECT json_agg(json_build_object('level', l.level, 'docs', l.docs, 'max', l.max_impact::text) ORDER BY l.level)
             FROM wg_knowledge_term_levels l WHERE l.project = $1 AND l.term = x.term)) ORDER BY x.term) FROM (
          SELECT DISTINCT u.lexeme AS term FROM unnest($2::text[]) w, unnest(to_tsvector('english', wg_knowledge_words(w))) u
          UNION
          SELECT e.term FROM unnest($3::text[]) w, unnest(to_tsvector('english', wg_knowledge_words(w))) u,
            LATERAL (SELECT t.term FROM wg_knowledge_terms t WHERE t.project = $1 AND t.term >= u.lexeme COLLATE "C"
                     AND t.term < (u.lexeme || chr(1114111)) COLLATE "C" AND t.docs > 0 ORDER BY t.term LIMIT ${MAX_PREFIX_TERMS}) e
        ) x LEFT JOIN wg_knowledge_terms t ON t.project = $1 AND t.term = x.term) AS terms`,
    [project, words, prefixes],
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
  return { w, nodes, terms: [...docs].map(([term, d]) => ({ term, docs: d, idf: idfOf(nodes, d), levels: levels.get(term) ?? [] })) };
}

interface Statistics {
  w: string;
  /** The live nodes the idf counts (as of the watermark). */
  nodes: number;
  terms: Array<RankTerm & Pick<LevelTerm, 'levels'>>;
}

/** The one-word query: a single group with a single word, no filters, no deleted nodes (its total is the word's count). */
function isOneWord(q: KnowledgeSearchQuery): boolean {
  const g = q.query.groups;
  return g.length === 1 && !g[0]!.negated && g[0]!.items.length === 1 && g[0]!.items[0]!.kind === 'word' && !hasFilters(q) && !q.includeDeleted;
}

/** Every match holds every positive term: each positive group is one word (no OR, no prefix). */
function allRequired(query: SearchQuery): boolean {
  return query.groups.every((g) => g.negated || (g.items.length === 1 && g.items[0]!.kind === 'word'));
}

/**
 * Every positive group is one word or one phrase, and one is a phrase: every match holds every positive term (a
 * phrase's words), so the level walk finds the first page, the phrase checked on each candidate by the tsquery.
 */
function requiredWithPhrase(query: SearchQuery): boolean {
  const positive = query.groups.filter((g) => !g.negated);
  return (
    positive.every((g) => g.items.length === 1 && (g.items[0]!.kind === 'word' || g.items[0]!.kind === 'phrase')) &&
    positive.some((g) => g.items[0]!.kind === 'phrase')
  );
}

/**
 * The share of the nodes holding all of `terms` (taken as independent) that match the query: its exact count over
 * that estimate (a capped count gives a lower share: the walk then plans more candidates, never fewer).
 */
function passRate(count: PhraseCount | undefined, terms: readonly RankTerm[], nodes: number): number {
  if (!count || nodes <= 0) return 1;
  const independent = terms.reduce((d, t) => d * Math.min(1, t.docs / nodes), nodes);
  return independent > 0 ? Math.min(1, Math.max(count.total, 1) / independent) : 1;
}

/** The expected share of the nodes a query matches: its required terms' shares multiplied (independent), else 1/8. */
function density(query: SearchQuery, terms: readonly RankTerm[], nodes: number): number {
  if (!allRequired(query) || nodes <= 0 || terms.length === 0) return 1 / 8;
  return terms.reduce((d, t) => d * Math.min(1, t.docs / nodes), 1);
}

function hasFilters(q: KnowledgeSearchQuery): boolean {
  return q.role !== undefined || !!q.tags?.length || q.sinceMs !== undefined || q.untilMs !== undefined;
}

/**
 * One page of a search. `strategy` is for tests: 'score-every-match' never walks postings, the reference the walk
 * must equal.
 */
export async function pgSearch(
  sql: SqlRunner,
  project: string,
  q: KnowledgeSearchQuery,
  totalCap: number,
  strategy: 'auto' | 'score-every-match' = 'auto',
): Promise<KnowledgeSearchPage> {
  const cursor = q.cursor !== undefined ? decodeCursor(q.cursor) : undefined;
  if (!cursor && strategy === 'auto' && isOneWord(q)) {
    const page = await oneWordFirstPage(sql, project, q);
    if (page) return page;
  }
  const { w: watermark, terms, nodes: liveNodes } = await statistics(sql, project, q.query, cursor);
  const params: unknown[] = [project];
  const tsq = tsqueryExpr(q.query, params);
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const filters =
    (q.role !== undefined ? ` AND n.node->>'role' = ${p(q.role)}` : '') +
    (q.tags?.length ? ` AND ARRAY(SELECT json_array_elements_text(n.node->'tags')) @> ${p([...q.tags])}::text[]` : '') +
    (q.sinceMs !== undefined ? ` AND n.node->>'createdAt' >= ${p(new Date(q.sinceMs).toISOString())}` : '') +
    (q.untilMs !== undefined ? ` AND n.node->>'createdAt' <= ${p(new Date(q.untilMs).toISOString())}` : '');
  const match: MatchSql = { tsq, filters, params: [...params] };
  const w = p(watermark);
  const matchUpTo = { ...match, params: [...params], w };
  const after = cursor ? { score: Number(cursor.s), ord: BigInt(cursor.o) } : undefined;
  const want = q.limit + 1;

  // Live matches: one term that every match contains → walk its postings; else score every match.
  const present = terms.filter((t) => t.docs > 0);
  let live: RankedMatch[];
  // The live matches' exact count when every one was scored (undefined: count it apart).
  let liveTotal: number | null | undefined;
  // A phrase's live count from the pair lists, taken before the walk (which plans with it).
  let phraseCount: PhraseCount | undefined;
  if (present.length === 0) [live, liveTotal] = [[], 0];
  else if (present.length === 1 && strategy === 'auto') live = await walkOneTerm(sql, project, present[0]!, watermark, want, after, isOneWord(q) ? undefined : match);
  else {
    const phrased = strategy === 'auto' && !after && requiredWithPhrase(q.query);
    if (phrased && !hasFilters(q)) phraseCount = await countPhrases(sql, project, q.query, matchUpTo, watermark, totalCap);
    const walked =
      strategy === 'auto' && !after && (allRequired(q.query) || phrased)
        ? await walkLevels(sql, matchUpTo, terms, liveNodes, want, passRate(phraseCount, terms, liveNodes))
        : undefined;
    if (walked) live = walked;
    else ({ matches: live, total: liveTotal } = await scoreEveryMatch(sql, matchUpTo, terms, want, after));
  }
  const deleted = q.includeDeleted ? await scoreDeleted(sql, match, terms, after) : { matches: [], total: 0 };
  const ranked = [...live, ...deleted.matches].sort(compareMatches).slice(0, want);
  const more = ranked.length > q.limit;
  const page = more ? ranked.slice(0, q.limit) : ranked;

  const nodes = await pageNodes(sql, project, page);
  const hits = page
    .filter((m) => nodes.has(m.ord))
    .map((m) => ({ node: nodes.get(m.ord)!, score: m.score, deleted: m.deleted, after: encodeCursor({ w: watermark, s: String(m.score), o: m.ord.toString() }) }));
  const last = page[page.length - 1];
  const { total, totalExact } =
    typeof liveTotal === 'number'
      ? { total: liveTotal + deleted.total, totalExact: true }
      : phraseCount
        ? withDeleted(phraseCount, deleted.total, totalCap)
        : await countMatches(sql, project, q, terms, { ...matchUpTo, watermark, deletedSql: q.includeDeleted, nodes: liveNodes }, totalCap, deleted.total);
  return {
    hits,
    nextCursor: more && last ? encodeCursor({ w: watermark, s: String(last.score), o: last.ord.toString() }) : null,
    total,
    totalExact,
  };
}

/** The nodes of a page's matches, by ord (live by seq, deleted by their record's seq, negated). */
async function pageNodes(sql: SqlRunner, project: string, page: readonly RankedMatch[]): Promise<Map<bigint, StoredKnowledgeNode>> {
  const out = new Map<bigint, StoredKnowledgeNode>();
  for (const m of page) if (m.node) out.set(m.ord, m.node);
  const live = page.filter((m) => !m.deleted && !m.node).map((m) => m.ord.toString());
  const gone = page.filter((m) => m.deleted).map((m) => (-m.ord).toString());
  if (live.length) {
    for (const r of await sql.query<{ seq: string; node: StoredKnowledgeNode }>('SELECT seq::text AS seq, node FROM wg_knowledge_nodes WHERE project = $1 AND seq = ANY($2::bigint[])', [project, live])) {
      out.set(BigInt(r.seq), r.node);
    }
  }
  if (gone.length) {
    const rows = await sql.query<{ seq: string; node: StoredKnowledgeNode }>(
      `SELECT seq::text AS seq, record->'nodeData' AS node FROM wg_knowledge_deleted WHERE project = $1 AND seq = ANY($2::bigint[])`,
      [project, gone],
    );
    for (const r of rows) out.set(-BigInt(r.seq), r.node);
  }
  return out;
}

/** A capped live count and the deleted matches' (all counted): past the cap, the cap and totalExact false. */
function withDeleted(live: { total: number; exact: boolean }, deletedTotal: number, cap: number): { total: number; totalExact: boolean } {
  const total = live.total + deletedTotal;
  return live.exact ? { total, totalExact: true } : { total: cap, totalExact: false };
}

/**
 * `total` when the matches were not all scored: a one-word query's is its word's document count (exact, nothing
 * counted); a query with a phrase, from the pair lists (pg-search-phrase-count.ts); words, prefixes, OR and
 * exclusions without filters from the term bitmaps, newest chunks first, up to the cap (pg-search-count.ts
 * countCapped); any other through GIN up to the cap. Past the cap: the cap, totalExact false.
 */
async function countMatches(
  sql: SqlRunner,
  project: string,
  q: KnowledgeSearchQuery,
  terms: readonly RankTerm[],
  match: MatchSql & { w: string; watermark: string; deletedSql?: boolean; nodes: number },
  totalCap: number,
  deletedTotal: number,
): Promise<{ total: number; totalExact: boolean }> {
  if (isOneWord(q) && terms.length === 1) return { total: terms[0]!.docs, totalExact: true };
  if (isOneWord(q) && terms.length === 0) return { total: 0, totalExact: true };
  if (!hasFilters(q)) {
    const live =
      (await countPhrases(sql, project, q.query, match, match.watermark, totalCap)) ??
      (await countCapped(sql, project, q.query, match.watermark, totalCap, density(q.query, terms, match.nodes)));
    if (live !== undefined) return withDeleted(live, deletedTotal, totalCap);
  }
  const live = `SELECT 1 FROM wg_knowledge_nodes n, tq WHERE n.project = $1 AND n.search @@ tq.q AND n.seq <= ${match.w}::bigint${match.filters}`;
  const deleted = match.deletedSql
    ? ` UNION ALL SELECT 1 FROM wg_knowledge_deleted d CROSS JOIN LATERAL (SELECT d.record->'nodeData' AS node) n, tq
        WHERE d.project = $1 AND wg_knowledge_vector(n.node) @@ tq.q${match.filters}`
    : '';
  const params = [...match.params, totalCap + 1];
  const [counted] = await sql.query<{ n: string }>(
    `WITH tq AS (SELECT ${match.tsq} AS q)
     SELECT count(*)::text AS n FROM (SELECT 1 FROM (${live}${deleted}) h LIMIT $${params.length}) c`,
    params,
  );
  const n = Number(counted?.n ?? 0);
  return n <= totalCap ? { total: n, totalExact: true } : { total: totalCap, totalExact: false };
}
