import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { KnowledgeSearchPage, KnowledgeSearchQuery } from '../../application/ports/knowledge-store';
import type { QueryItem, SearchQuery } from '../../domain/search';
import type { StoredKnowledgeNode } from '../../domain/knowledge-node';
import { decodeCursor, encodeCursor } from './pg-search-cursor';
import { oneWordFirstPage } from './pg-search-one-word';
import { countCapped } from './pg-search-count';
import { countPhrases, type PhraseCount } from './pg-search-phrase-count';
import { statistics } from './pg-search-statistics';
import type { PgSearchCache } from './pg-search-cache';
import { cachedMatches, cacheWords } from './pg-search-cached';
import { fastFirstPage, rememberParse } from './pg-search-fast';
import { catchUpPostings } from './pg-search-catch-up';
import { walkLevels } from './pg-search-top';
import { compareMatches, scoreDeleted, scoreEveryMatch, walkOneTerm, type MatchSql, type RankedMatch, type RankTerm } from './pg-search-rank';

/**
 * search_nodes in PostgreSQL: the parsed query (domain/search/search-query.ts, the files' parse) becomes a tsquery —
 * each word and phrase through websearch_to_tsquery('english', …), each prefix through to_tsquery('english', 'w:*')
 * (websearch syntax has none) — matched against the generated `search` column (GIN index). Ranking: pg-search-rank.ts
 * (Σ idf × ts_rank per term, default weights thought A 1.0, tags B 0.4, artifacts C 0.2, no length normalization:
 * more occurrences rank higher; the files compute the same impacts, domain/search/impact.ts, and the same sum). Pages: score then seq, newest
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
  cache?: PgSearchCache,
): Promise<KnowledgeSearchPage> {
  const cursor = q.cursor !== undefined ? decodeCursor(q.cursor) : undefined;
  const words = cache && strategy === 'auto' ? cacheWords(q, cache.hasSource('pair')) : undefined;
  // A first page the cache holds every list of, its text parsed before: one statement (pg-search-fast.ts). It reads
  // no postings — the cache's lists, then the page's nodes with the project's state — and its answer stands only if
  // that state is the lists' and every row is posted, so it goes before the catch-up: a search with nothing to post
  // costs one round trip, not two.
  if (words && !cursor) {
    const fast = await fastFirstPage(cache!, sql, project, q, words, totalCap);
    if (fast) return fast;
  }
  // Before any read of the postings, counts, levels or bitmaps: the rows appended since are posted (migration 14).
  await catchUpPostings(sql, project);
  if (!cursor && strategy === 'auto' && isOneWord(q)) {
    const page = await oneWordFirstPage(sql, project, q);
    if (page) return page;
  }
  const after = cursor ? { score: Number(cursor.s), ord: BigInt(cursor.o) } : undefined;
  const want = q.limit + 1;
  // A query the cache may answer reads its statistics without the level rows; from the cache's lists when it answers
  // (pg-search-cache.ts), else the statistics again with them, for the SQL path.
  let stats = await statistics(sql, project, q.query, cursor, words, words === undefined);
  if (words) rememberParse(cache!, q, words, stats);
  const cached = words ? await cachedMatches(cache!, sql, project, q, stats, words, after, want, totalCap) : undefined;
  if (words && !cached) stats = await statistics(sql, project, q.query, cursor);
  const { w: watermark, terms, nodes: liveNodes } = stats;
  // The state this page searched: a later page's statistics checked it equal to its cursor's.
  const searched = { w: watermark, x: stats.x, d: stats.d };
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

  // Live matches: the cache's when it answered; else one term that every match contains → walk its postings; else
  // score every match.
  const present = terms.filter((t) => t.docs > 0);
  let live: RankedMatch[];
  // The live matches' exact count when every one was scored (undefined: count it apart).
  let liveTotal: number | null | undefined;
  // A phrase's live count from the pair lists, taken before the walk (which plans with it).
  let phraseCount: PhraseCount | undefined;
  if (cached) live = cached.matches;
  else if (present.length === 0) [live, liveTotal] = [[], 0];
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
    .map((m) => ({ node: nodes.get(m.ord)!, score: m.score, deleted: m.deleted, after: encodeCursor(searched, String(m.score), m.ord.toString()) }));
  const last = page[page.length - 1];
  const { total, totalExact } = cached?.total !== undefined
    ? { total: cached.total, totalExact: cached.totalExact! }
    : typeof liveTotal === 'number'
      ? { total: liveTotal + deleted.total, totalExact: true }
      : phraseCount
        ? withDeleted(phraseCount, deleted.total, totalCap)
        : await countMatches(sql, project, q, terms, { ...matchUpTo, watermark, deletedSql: q.includeDeleted, nodes: liveNodes }, totalCap, deleted.total);
  return {
    hits,
    nextCursor: more && last ? encodeCursor(searched, String(last.score), last.ord.toString()) : null,
    total,
    totalExact,
  };
}

/** A page's live nodes by seq: named (prepared once per connection), as every first page reads them. */
const PAGE_NODES = { name: 'wg_knowledge_search_page_nodes', text: 'SELECT seq::text AS seq, node FROM wg_knowledge_nodes WHERE project = $1 AND seq = ANY($2::bigint[])' };

/** The nodes of a page's matches, by ord (live by seq, deleted by their record's seq, negated). */
async function pageNodes(sql: SqlRunner, project: string, page: readonly RankedMatch[]): Promise<Map<bigint, StoredKnowledgeNode>> {
  const out = new Map<bigint, StoredKnowledgeNode>();
  for (const m of page) if (m.node) out.set(m.ord, m.node);
  const live = page.filter((m) => !m.deleted && !m.node).map((m) => m.ord.toString());
  const gone = page.filter((m) => m.deleted).map((m) => (-m.ord).toString());
  if (live.length) {
    for (const r of await sql.query<{ seq: string; node: StoredKnowledgeNode }>(PAGE_NODES, [project, live])) {
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
