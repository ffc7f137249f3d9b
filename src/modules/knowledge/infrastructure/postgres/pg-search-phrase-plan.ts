import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import { parseItemQuery } from './pg-search-phrase-count';
import { holding } from './pg-search-pair-source';

/**
 * How a phrase maps to pair lists (pg-search-pair-source.ts) for a search that intersects lists in the server process.
 * websearch_to_tsquery('english', '"a b c"') is `'a' <-> 'b' <-> 'c'` (stems; leading and trailing stopwords
 * dropped): a node matches when the three lexemes stand at consecutive positions. A two-lexeme phrase is exactly its
 * one pair's list. A longer one is the AND of its consecutive pairs' lists — a superset (`a b` here and `b c` there
 * in one node holds both pairs, not the phrase) — so its candidates are checked on their rows (`search @@` the
 * phrase's tsquery) in the caller's score order, only until its page is full ({@link takeHolding}). A stopword inside
 * (`'a' <2> 'b'`, a gap) or anything else the pairs cannot say (a word of several lexemes joined by `&`) has no plan:
 * the SQL path answers it.
 */
export interface PhrasePlan {
  /** The phrase's tsquery as text (what `search @@` checks). */
  tsquery: string;
  /** Its lexemes in order (the scored terms are these). */
  lexemes: string[];
  /** Its distinct consecutive pairs `'a b'`, as the pair lists key them (none for a one-lexeme phrase). */
  pairs: string[];
  /** Whether the AND of `pairs` is the phrase exactly (one pair, or none): else candidates need {@link takeHolding}. */
  exact: boolean;
}

/** The plan of a phrase from its websearch_to_tsquery text; undefined for a gap, an empty phrase or another form. */
export function phrasePlanOf(tsquery: string): PhrasePlan | undefined {
  const parsed = parseItemQuery(tsquery);
  if (!parsed) return undefined;
  if (parsed.kind === 'term') return { tsquery, lexemes: [parsed.term], pairs: [], exact: true };
  const lexemes = [parsed.pairs[0]!.split(' ')[0]!, ...parsed.pairs.map((p) => p.split(' ')[1]!)];
  const pairs = [...new Set(parsed.pairs)];
  return { tsquery, lexemes, pairs, exact: parsed.pairs.length === 1 };
}

/** The plans of phrases (each its words, as the domain parse left them), in one statement. */
export async function planPhrases(sql: SqlRunner, phrases: ReadonlyArray<readonly string[]>): Promise<Array<PhrasePlan | undefined>> {
  if (!phrases.length) return [];
  const [row] = await sql.query<{ texts: string[] }>(
    `SELECT ARRAY(SELECT websearch_to_tsquery('english', t)::text FROM unnest($1::text[]) WITH ORDINALITY u(t, i) ORDER BY i) AS texts`,
    [phrases.map((words) => `"${words.join(' ')}"`)],
  );
  return phrases.map((_, i) => phrasePlanOf(row?.texts[i] ?? ''));
}

/**
 * Of `candidates` (seqs in the caller's order: score order), the first `want` whose row holds the phrase `plan`, in
 * that order, checked a batch at a time (first batch `want`, each next one four times larger): a longer phrase's
 * candidates from the AND of its pairs are a superset. Answers the holders found and how many candidates were
 * checked (the rest are unchecked). An exact plan checks nothing.
 */
export async function takeHolding(
  sql: SqlRunner,
  project: string,
  plan: PhrasePlan,
  candidates: ArrayLike<number>,
  want: number,
  upTo: number,
): Promise<{ holders: number[]; checked: number }> {
  if (plan.exact) {
    const holders = Array.from({ length: Math.min(want, candidates.length) }, (_, i) => candidates[i]!);
    return { holders, checked: holders.length };
  }
  const holders: number[] = [];
  let checked = 0;
  let batch = Math.max(want, 16);
  while (holders.length < want && checked < candidates.length) {
    const part = Array.from({ length: Math.min(batch, candidates.length - checked) }, (_, i) => candidates[checked + i]!);
    const held = new Set(await holding(sql, project, plan.tsquery, part, upTo));
    for (const seq of part) {
      checked++;
      if (held.has(seq) && holders.push(seq) >= want) break;
    }
    batch *= 4;
  }
  return { holders, checked };
}
