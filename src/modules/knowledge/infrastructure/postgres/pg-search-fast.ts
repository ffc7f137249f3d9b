import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { KnowledgeSearchPage, KnowledgeSearchQuery } from '../../application/ports/knowledge-store';
import type { StoredKnowledgeNode } from '../../domain/knowledge-node';
import type { PgSearchCache } from './pg-search-cache';
import { cachePlan } from './pg-search-cached-phrases';
import { encodeCursor } from './pg-search-cursor';
import { intersect } from './pg-search-intersect';
import type { QueryParse } from './pg-search-parse-memo';
import { idfOf } from './pg-search-rank';
import { rowsPast } from './pg-search-watermark';

/**
 * The page's nodes and, in the same snapshot, what statistics() reads of the project (its watermark posted_up_to,
 * last change id, version, deletion record count: the last three also go into the cursor) and whether rows past the
 * watermark exist (appended since the catch-up: a write since): named, prepared once per connection. One row per node
 * found, or one row of nulls beside the state.
 */
export const FAST_PAGE = {
  name: 'wg_knowledge_search_fast_page',
  text: `SELECT s.w, s.u, s.x, s.v, s.d, n.seq::text AS seq, n.node FROM (SELECT
      (SELECT posted_up_to FROM wg_knowledge_projects WHERE project = $1)::text AS w,
      coalesce((SELECT ${rowsPast('$1', 'j.posted_up_to')} FROM wg_knowledge_projects j WHERE j.project = $1), false) AS u,
      (SELECT max(id) FROM wg_knowledge_changes WHERE project = $1)::text AS x,
      (SELECT version FROM wg_knowledge_projects WHERE project = $1)::text AS v,
      (SELECT deleted FROM wg_knowledge_projects WHERE project = $1)::text AS d) s
    LEFT JOIN wg_knowledge_nodes n ON n.project = $1 AND n.seq = ANY($2::bigint[])`,
};

/** The parse memo's key of a query the cache answers: each group's sign and its `cacheWords` entry. */
export function parseKey(q: KnowledgeSearchQuery, words: readonly string[]): string {
  return q.query.groups.map((g, i) => `${g.negated ? '-' : '+'}${words[i]}`).join('\u0000');
}

/** Remembers what the statistics statement parsed of `words` (it was asked with `lexemesOf` = `words`). */
export function rememberParse(cache: PgSearchCache, q: KnowledgeSearchQuery, words: readonly string[], stats: { lexemes: Array<string | null>; tsqueries: string[]; terms: ReadonlyArray<{ term: string }> }): void {
  if (stats.lexemes.length !== words.length || stats.tsqueries.length !== words.length) return;
  cache.parses.set(parseKey(q, words), { lexemes: stats.lexemes, tsqueries: stats.tsqueries, terms: stats.terms.map((t) => t.term) });
}

/**
 * A first page (no cursor) of a query the cache answers in one statement, or undefined (today's path: statistics,
 * the cache's sync, the page's nodes). Taken only when the query's text was parsed before (the parse memo) and the
 * cache holds every list it needs: the statistics come from the lists — a term's documents are its list's length
 * (the postings of the live nodes up to the watermark, what wg_knowledge_terms counts), N the live count the sync
 * read — and the intersection runs as cachedMatches runs it, terms in the memoized order. Then one statement reads
 * the page's nodes and the project's state; the answer stands only if that state is the snapshot the lists reflect
 * (any write since, on this host or another, and the page is discarded). Longer phrases (checked on rows) are left
 * to today's path.
 */
export async function fastFirstPage(
  cache: PgSearchCache,
  sql: SqlRunner,
  project: string,
  q: KnowledgeSearchQuery,
  words: readonly string[],
  totalCap: number,
): Promise<KnowledgeSearchPage | undefined> {
  const parse = cache.parses.get(parseKey(q, words));
  if (!parse) return undefined;
  const refs = listRefs(q, parse);
  if (!refs) return undefined;
  const held = cache.peek(project, [...refs.terms, ...refs.pairs]);
  if (!held) return undefined;
  const { lists, state } = held;
  const list = (kind: string, key: string) => lists.get(`${kind}\u0000${key}`)!;
  const r = intersect({
    scored: parse.terms.map((t) => {
      const l = list('term', t) as { seqs: Int32Array; impacts: Float32Array };
      return { list: l, idf: idfOf(state.nodes, l.seqs.length) };
    }),
    required: refs.requiredPairs.map((p) => list('pair', p).seqs),
    excluded: [...refs.excludedTerms.map((t) => list('term', t).seqs), ...refs.excludedPairs.map((p) => list('pair', p).seqs)],
    upTo: Number(state.maxSeq),
    want: q.limit + 1,
  });
  const more = r.top.length > q.limit;
  const page = more ? r.top.slice(0, q.limit) : r.top;
  const rows = await sql.query<{ w: string | null; u: boolean; x: string | null; v: string | null; d: string | null; seq: string | null; node: StoredKnowledgeNode | null }>(
    FAST_PAGE,
    [project, page.map((m) => String(m.seq))],
  );
  const now = rows[0];
  // Rows not posted yet (appended since this search's catch-up) are a write since, as any other.
  if (!now || now.u || (now.w ?? '0') !== state.maxSeq || (now.x ?? '0') !== state.change || (now.v ?? '0') !== state.version) {
    cache.counters.stale++;
    return undefined;
  }
  const nodes = new Map<number, StoredKnowledgeNode>();
  for (const row of rows) if (row.seq !== null && row.node) nodes.set(Number(row.seq), row.node);
  const searched = { w: state.maxSeq, x: state.change, d: now?.d ?? '0' };
  const hits = page
    .filter((m) => nodes.has(m.seq))
    .map((m) => ({ node: nodes.get(m.seq)!, score: m.score, deleted: false, after: encodeCursor(searched, String(m.score), String(m.seq)) }));
  const last = page[page.length - 1];
  cache.counters.fast++;
  return {
    hits,
    nextCursor: more && last ? encodeCursor(searched, String(last.score), String(last.seq)) : null,
    // A first page's total as cachedMatches gives it: counted up to the cap.
    ...(r.total <= totalCap ? { total: r.total, totalExact: true } : { total: totalCap, totalExact: false }),
  };
}

/**
 * The lists of the query's plan (pg-search-cached-phrases.ts) in the order the intersection takes them, or undefined
 * when cachedMatches would decline it or it needs its rows checked (a phrase of three or more words).
 */
function listRefs(q: KnowledgeSearchQuery, parse: QueryParse) {
  const plan = cachePlan(q, parse.lexemes, parse.tsqueries);
  if (!plan || plan.check) return undefined;
  const { positive, excludedTerms, requiredPairs, excludedPairs } = plan;
  if (q.query.groups.length === 1 && positive.size === 1 && !requiredPairs.size) return undefined;
  if (parse.terms.length !== positive.size || !parse.terms.every((t) => positive.has(t))) return undefined;
  return {
    terms: [...positive, ...excludedTerms].map((key) => ({ kind: 'term', key })),
    pairs: [...requiredPairs, ...excludedPairs].map((key) => ({ kind: 'pair', key })),
    requiredPairs: [...requiredPairs],
    excludedTerms: [...excludedTerms],
    excludedPairs: [...excludedPairs],
  };
}
