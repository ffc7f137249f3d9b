import { InvalidArgumentsError } from '../../../../kernel/errors';
import { ENGLISH_STOPWORDS, forEachWord, stemWord } from './search-text';

/**
 * The query language of search_nodes, web-search style (docs/knowledge-graph.md, "Search", has examples):
 *   retry backoff        both words (AND)
 *   "exponential backoff" the words next to each other, in this order
 *   -flaky               not this word (or -"a phrase")
 *   cach*                any term starting with the prefix (after stemming: `cach*` finds cache, caching, cached)
 *   redis OR memcached   either (OR binds tighter than AND: `a b OR c` is a AND (b OR c))
 * Words are folded and stemmed as the index's (search-text.ts); stopwords outside phrases are ignored. Anything else
 * (brackets, regex characters, operators of other languages) is punctuation: it separates words and means nothing.
 * The parse is the same for every store: PostgreSQL gets the parsed words, not the raw text.
 */

/** One thing a document may contain. */
export type QueryItem =
  /** One term (a stem); `word` is the folded word it came from (what PostgreSQL stems again). */
  | { kind: 'word'; term: string; word: string }
  /** Terms starting with `term` (a stem); `word` as for words. */
  | { kind: 'prefix'; term: string; word: string }
  /**
   * Terms at fixed distances: `terms[i]` at position p + `offsets[i]` (a stopword inside the phrase leaves a gap, as
   * in PostgreSQL's phraseto_tsquery). `words` are the phrase's folded words, stopwords included.
   */
  | { kind: 'phrase'; terms: string[]; offsets: number[]; words: string[] };

/** Alternatives (OR); `negated`: the document must contain none of them. */
export interface QueryGroup {
  items: QueryItem[];
  negated: boolean;
}

/** Groups joined by AND; at least one is not negated. */
export interface SearchQuery {
  groups: QueryGroup[];
  /** Every term the query looks for (words, prefixes, phrase terms), for scoring and snippets; negated ones not. */
  positiveTerms: string[];
  /** The query's text, trimmed. */
  text: string;
}

/** Bounds that keep a query's cost bounded whatever it says. */
export const MAX_QUERY_LENGTH = 1000;
export const MAX_QUERY_TERMS = 32;

interface RawToken {
  kind: 'word' | 'phrase' | 'or';
  text: string;
  negated: boolean;
  prefix: boolean;
}

function lex(query: string): RawToken[] {
  const tokens: RawToken[] = [];
  let i = 0;
  while (i < query.length) {
    const c = query[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    let negated = false;
    if (c === '-' && i + 1 < query.length && !/\s/.test(query[i + 1]!)) {
      negated = true;
      i++;
    }
    if (query[i] === '"') {
      const end = query.indexOf('"', i + 1);
      const stop = end < 0 ? query.length : end;
      tokens.push({ kind: 'phrase', text: query.slice(i + 1, stop), negated, prefix: false });
      i = stop + 1;
      continue;
    }
    let j = i;
    while (j < query.length && !/\s/.test(query[j]!) && query[j] !== '"') j++;
    const text = query.slice(i, j);
    i = j;
    if (!negated && text === 'OR') tokens.push({ kind: 'or', text, negated, prefix: false });
    else tokens.push({ kind: 'word', text: text.replace(/\*+$/, ''), negated, prefix: /[\p{L}\p{N}]\*+$/u.test(text) });
  }
  return tokens;
}

/** A phrase (or a word that punctuation splits, like `retry-policy`) as terms at offsets; undefined when all stopwords. */
function phraseItem(text: string): QueryItem | undefined {
  const terms: string[] = [];
  const offsets: number[] = [];
  const words: string[] = [];
  let first = -1;
  forEachWord(text, (w) => {
    words.push(w.folded);
    if (w.term === undefined) return;
    if (first < 0) first = w.position;
    terms.push(w.term);
    offsets.push(w.position - first);
  });
  if (!terms.length) return undefined;
  if (terms.length === 1) return { kind: 'word', term: terms[0]!, word: words.find((w) => !ENGLISH_STOPWORDS.has(w))! };
  return { kind: 'phrase', terms, offsets, words };
}

function wordItem(token: RawToken): QueryItem | undefined {
  const words: string[] = [];
  forEachWord(token.text, (w) => void words.push(w.folded));
  if (words.length === 0) return undefined;
  if (words.length > 1) return phraseItem(token.text);
  const word = words[0]!;
  // A stopword is ignored, as a prefix too (PostgreSQL's to_tsquery drops it the same way).
  if (ENGLISH_STOPWORDS.has(word)) return undefined;
  // A prefix is stemmed like a word, as PostgreSQL's to_tsquery does: `caching*` looks for terms starting with `cach`.
  if (token.prefix) return { kind: 'prefix', term: stemWord(word), word };
  return { kind: 'word', term: stemWord(word), word };
}

/**
 * Parses a query. Throws InvalidArgumentsError (field `query`) for one that is too long, has too many terms, or has
 * nothing to look for (empty, only punctuation or stopwords, only exclusions).
 */
export function parseSearchQuery(raw: string): SearchQuery {
  const text = raw.trim();
  if (text.length > MAX_QUERY_LENGTH) {
    throw new InvalidArgumentsError(`query: at most ${MAX_QUERY_LENGTH} characters (got ${text.length})`, 'query');
  }
  const groups: QueryGroup[] = [];
  let joinNext = false;
  for (const token of lex(text)) {
    if (token.kind === 'or') {
      joinNext = groups.length > 0 && !groups[groups.length - 1]!.negated;
      continue;
    }
    const item = token.kind === 'phrase' ? phraseItem(token.text) : wordItem(token);
    const join = joinNext && !token.negated;
    joinNext = false;
    if (!item) continue;
    if (join) groups[groups.length - 1]!.items.push(item);
    else groups.push({ items: [item], negated: token.negated });
  }
  const positiveTerms = new Set<string>();
  let count = 0;
  for (const g of groups) {
    for (const item of g.items) {
      const terms = item.kind === 'phrase' ? item.terms : [item.term];
      count += terms.length;
      if (!g.negated) for (const t of terms) positiveTerms.add(t);
    }
  }
  if (count > MAX_QUERY_TERMS) {
    throw new InvalidArgumentsError(`query: at most ${MAX_QUERY_TERMS} search terms (got ${count}); search for fewer words`, 'query');
  }
  if (!groups.some((g) => !g.negated)) {
    throw new InvalidArgumentsError(
      text === ''
        ? 'query: expected words to search for (got an empty query)'
        : `query: '${text.slice(0, 80)}' has no word to look for (punctuation, stopwords such as "the" and -excluded words alone match nothing)`,
      'query',
    );
  }
  return { groups, positiveTerms: [...positiveTerms], text };
}
