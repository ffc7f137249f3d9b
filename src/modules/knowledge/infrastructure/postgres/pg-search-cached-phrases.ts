import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { KnowledgeSearchQuery } from '../../application/ports/knowledge-store';
import { intersect, type Intersection, type IntersectionResult } from './pg-search-intersect';
import { phrasePlanOf, takeHolding, type PhrasePlan } from './pg-search-phrase-plan';

/**
 * What the search cache needs of a query whose groups are each one word or one phrase (pg-search-cached.ts): its
 * scored lexemes, the term lists it excludes, and for phrases the pair lists (pg-search-pair-list-source.ts) — a
 * positive phrase's pairs required (unscored: its words are the scored terms), a negated two-word phrase's pair
 * excluded. A positive phrase of three or more words is the AND of its pairs, a superset: its candidates are checked
 * on their rows in score order until the page is full ({@link checkedTop}). Undefined — the SQL path — for a phrase
 * the pairs cannot say (a stopword inside, a word of several lexemes in a negated phrase) or a negated longer phrase
 * (excluding its superset would drop real matches).
 */
export interface CachePlan {
  positive: Set<string>;
  excludedTerms: Set<string>;
  requiredPairs: Set<string>;
  excludedPairs: Set<string>;
  /** The longer positive phrases, as one tsquery every candidate must match; undefined when the pairs are exact. */
  check?: PhrasePlan;
}

/**
 * The plan of `q` from the statistics' per-group results: `lexemes[i]` a word group's one lexeme (null: not one),
 * `tsqueries[i]` a phrase group's websearch_to_tsquery text.
 */
export function cachePlan(q: KnowledgeSearchQuery, lexemes: ReadonlyArray<string | null>, tsqueries: readonly string[]): CachePlan | undefined {
  const plan: CachePlan = { positive: new Set(), excludedTerms: new Set(), requiredPairs: new Set(), excludedPairs: new Set() };
  const checks: PhrasePlan[] = [];
  for (const [i, g] of q.query.groups.entries()) {
    const it = g.items[0]!;
    if (it.kind === 'word') {
      const lexeme = lexemes[i];
      if (!lexeme) return undefined;
      (g.negated ? plan.excludedTerms : plan.positive).add(lexeme);
      continue;
    }
    const phrase = tsqueries[i] !== undefined ? phrasePlanOf(tsqueries[i]!) : undefined;
    if (!phrase) return undefined;
    if (!g.negated) {
      for (const l of phrase.lexemes) plan.positive.add(l);
      for (const p of phrase.pairs) plan.requiredPairs.add(p);
      if (!phrase.exact) checks.push(phrase);
    } else if (phrase.pairs.length === 0) plan.excludedTerms.add(phrase.lexemes[0]!);
    else if (phrase.exact) plan.excludedPairs.add(phrase.pairs[0]!);
    else return undefined;
  }
  if (checks.length) {
    const tsquery = checks.map((c) => `(${c.tsquery})`).join(' & ');
    plan.check = { tsquery, lexemes: checks.flatMap((c) => c.lexemes), pairs: checks.flatMap((c) => c.pairs), exact: false };
  }
  return plan;
}

/**
 * The best `want` matches of `q` whose rows also match `check`: the intersection asked for more candidates (×4 each
 * round) until `want` of them pass or none is left; each candidate checked once. `total` is the superset's, not the
 * matches': the caller counts them apart.
 */
export async function checkedTop(
  sql: SqlRunner,
  project: string,
  q: Intersection,
  check: PhrasePlan,
): Promise<IntersectionResult> {
  // Each round's top extends the previous one's (the same order, more of it), every one of which was checked.
  const held: Array<{ seq: number; score: number }> = [];
  let checked = 0;
  for (let ask = q.want; ; ask *= 4) {
    const r = intersect({ ...q, want: ask });
    const fresh = r.top.slice(checked);
    const { holders, checked: n } = await takeHolding(sql, project, check, fresh.map((m) => m.seq), q.want - held.length, q.upTo);
    const passed = new Set(holders);
    for (const m of fresh.slice(0, n)) if (passed.has(m.seq)) held.push(m);
    checked += n;
    if (held.length >= q.want || r.top.length < ask) return { ...r, top: held };
  }
}
