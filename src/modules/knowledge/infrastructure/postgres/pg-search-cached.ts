import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { KnowledgeSearchQuery } from '../../application/ports/knowledge-store';
import type { PgSearchCache } from './pg-search-cache';
import { cachePlan, checkedTop } from './pg-search-cached-phrases';
import { intersect } from './pg-search-intersect';
import type { RankedMatch } from './pg-search-rank';
import type { Statistics } from './pg-search-statistics';

/**
 * The words of a query the search cache can answer, or undefined (the SQL path): no filters, no deleted nodes, at
 * least one positive group, every group one word or — when the cache has pair lists — one phrase (the positive ones
 * required, AND; the negated ones excluded), and not a lone word (its first page walks one term's postings, already
 * within reach of list_nodes). A phrase group's entry is its text in quotes (the statistics read its tsquery).
 */
export function cacheWords(q: KnowledgeSearchQuery, phrases = false): string[] | undefined {
  const g = q.query.groups;
  if (q.role !== undefined || q.tags?.length || q.sinceMs !== undefined || q.untilMs !== undefined || q.includeDeleted) return undefined;
  if (!g.every((x) => x.items.length === 1 && (x.items[0]!.kind === 'word' || (phrases && x.items[0]!.kind === 'phrase')))) return undefined;
  if (!g.some((x) => !x.negated) || (g.length === 1 && !g[0]!.negated && g[0]!.items[0]!.kind === 'word')) return undefined;
  return g.map((x) => {
    const it = x.items[0]!;
    return it.kind === 'phrase' ? `"${it.words.join(' ')}"` : (it as { word: string }).word;
  });
}

/**
 * Live matches and the total from the cache's lists, or undefined (a word not one lexeme, a phrase the pairs cannot
 * say, the cache declined). A longer phrase's matches are checked on their rows (`sql`), first pages only, and its
 * total left undefined: the caller counts it (from the pair lists in PostgreSQL), as the SQL path does.
 */
export async function cachedMatches(
  cache: PgSearchCache,
  sql: SqlRunner,
  project: string,
  q: KnowledgeSearchQuery,
  stats: Statistics,
  words: readonly string[],
  after: { score: number; ord: bigint } | undefined,
  want: number,
  totalCap: number,
): Promise<{ matches: RankedMatch[]; total?: number; totalExact?: boolean } | undefined> {
  if (stats.lexemes.length !== words.length) return undefined;
  const plan = cachePlan(q, stats.lexemes, stats.tsqueries);
  if (!plan || (plan.check && after)) return undefined;
  const { positive, excludedTerms, requiredPairs, excludedPairs } = plan;
  // A lone phrase of one lexeme (`"retry"`) is a lone word: its postings walk answers it.
  if (q.query.groups.length === 1 && positive.size === 1 && !requiredPairs.size) return undefined;
  // The statistics' terms are the positive lexemes, in the order the SQL path sums them.
  if (stats.terms.length !== positive.size || !stats.terms.every((t) => positive.has(t.term))) return undefined;
  const refs = [
    ...[...positive, ...excludedTerms].map((key) => ({ kind: 'term', key })),
    ...[...requiredPairs, ...excludedPairs].map((key) => ({ kind: 'pair', key })),
  ];
  const lists = await cache.lists(project, refs, stats.seen);
  if (!lists) return undefined;
  const list = (kind: string, key: string) => lists.get(`${kind}\u0000${key}`)!;
  const inter = {
    scored: stats.terms.map((t) => ({ list: list('term', t.term) as { seqs: Int32Array; impacts: Float32Array }, idf: t.idf })),
    required: [...requiredPairs].map((p) => list('pair', p).seqs),
    excluded: [...[...excludedTerms].map((t) => list('term', t).seqs), ...[...excludedPairs].map((p) => list('pair', p).seqs)],
    upTo: Number(stats.w),
    ...(after ? { after } : {}),
    want,
  };
  const r = plan.check ? await checkedTop(sql, project, inter, plan.check) : intersect(inter);
  const matches = r.top.map((m) => ({ ord: BigInt(m.seq), score: m.score, deleted: false }));
  if (plan.check) return { matches };
  // The SQL path's totals: a first page counts up to the cap; a later page of two or more present terms scores every
  // match and counts them all, unless none is left after the cursor (then it counts up to the cap again).
  const present = stats.terms.filter((t) => t.docs > 0).length;
  const capped = r.total <= totalCap ? { total: r.total, totalExact: true } : { total: totalCap, totalExact: false };
  const exact = after !== undefined && present >= 2 && r.afterCount > 0;
  return { matches, ...(exact ? { total: r.total, totalExact: true } : capped) };
}
