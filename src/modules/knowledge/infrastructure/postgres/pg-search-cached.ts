import type { KnowledgeSearchQuery } from '../../application/ports/knowledge-store';
import type { PgSearchCache } from './pg-search-cache';
import { intersect } from './pg-search-intersect';
import type { RankedMatch } from './pg-search-rank';
import type { Statistics } from './pg-search-statistics';

/**
 * The words of a query the search cache can answer, or undefined (the SQL path): no filters, no deleted nodes, at
 * least one positive group, every group one word (the positive ones required, AND; the negated ones excluded), and
 * not a lone word (its first page walks one term's postings, already within reach of list_nodes).
 */
export function cacheWords(q: KnowledgeSearchQuery): string[] | undefined {
  const g = q.query.groups;
  if (q.role !== undefined || q.tags?.length || q.sinceMs !== undefined || q.untilMs !== undefined || q.includeDeleted) return undefined;
  if (!g.every((x) => x.items.length === 1 && x.items[0]!.kind === 'word')) return undefined;
  if (!g.some((x) => !x.negated) || (g.length === 1 && !g[0]!.negated)) return undefined;
  return g.map((x) => (x.items[0] as { word: string }).word);
}

/** Live matches and the total from the cache's lists, or undefined (a word not one lexeme, the cache declined). */
export async function cachedMatches(
  cache: PgSearchCache,
  project: string,
  q: KnowledgeSearchQuery,
  stats: Statistics,
  words: readonly string[],
  after: { score: number; ord: bigint } | undefined,
  want: number,
  totalCap: number,
): Promise<{ matches: RankedMatch[]; total: number; totalExact: boolean } | undefined> {
  if (stats.lexemes.length !== words.length || stats.lexemes.some((l) => l === null)) return undefined;
  const positive = new Set<string>();
  const negated = new Set<string>();
  q.query.groups.forEach((g, i) => (g.negated ? negated : positive).add(stats.lexemes[i]!));
  // The statistics' terms are the positive lexemes, in the order the SQL path sums them.
  if (stats.terms.length !== positive.size || !stats.terms.every((t) => positive.has(t.term))) return undefined;
  const refs = [...positive, ...negated].map((key) => ({ kind: 'term', key }));
  const lists = await cache.lists(project, refs, stats.seen);
  if (!lists) return undefined;
  const list = (term: string) => lists.get(`term\u0000${term}`)!;
  const r = intersect({
    scored: stats.terms.map((t) => ({ list: list(t.term) as { seqs: Int32Array; impacts: Float32Array }, idf: t.idf })),
    required: [],
    excluded: [...negated].map((t) => list(t).seqs),
    upTo: Number(stats.w),
    ...(after ? { after } : {}),
    want,
  });
  const matches = r.top.map((m) => ({ ord: BigInt(m.seq), score: m.score, deleted: false }));
  // The SQL path's totals: a first page counts up to the cap; a later page of two or more present terms scores every
  // match and counts them all, unless none is left after the cursor (then it counts up to the cap again).
  const present = stats.terms.filter((t) => t.docs > 0).length;
  const capped = r.total <= totalCap ? { total: r.total, totalExact: true } : { total: totalCap, totalExact: false };
  const exact = after !== undefined && present >= 2 && r.afterCount > 0;
  return { matches, ...(exact ? { total: r.total, totalExact: true } : capped) };
}
