// eslint-disable-next-line @typescript-eslint/no-require-imports
import porter2 = require('wink-porter2-stemmer');

/**
 * How text becomes search terms, the same for every store (docs/knowledge-graph.md, "Search"): words are runs of letters
 * and digits; each is folded (Unicode compatibility decomposition, combining marks removed, lower case), English
 * stopwords are dropped (their position still counts, so phrases keep their gaps) and the rest are stemmed with
 * Porter2 — the Snowball English stemmer PostgreSQL's `english` configuration uses. So "Caching", "cachés" and
 * "cache" are one term, `cach`.
 */

/** PostgreSQL's `english` stopword list (the Snowball list), so both stores drop the same words. */
export const ENGLISH_STOPWORDS: ReadonlySet<string> = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it ' +
    'its itself they them their theirs themselves what which who whom this that these those am is are was were be been ' +
    'being have has had having do does did doing a an the and but if or because as until while of at by for with about ' +
    'against between into through during before after above below to from up down in out on off over under again further ' +
    'then once here there when where why how all any both each few more most other some such no nor not only own same so ' +
    'than too very s t can will just don should now'
  ).split(' '),
);

/** Longer words are not indexed (PostgreSQL's limit for a lexeme, 2047 bytes, rounded down to characters). */
export const MAX_WORD_LENGTH = 2047;

const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const MARKS = /\p{M}/gu;

/** Folds one word: compatibility decomposition, combining marks dropped, lower case ("Café" → "cafe"). */
export function foldWord(word: string): string {
  // Plain ASCII (most words) has nothing to decompose.
  return ASCII.test(word) ? word.toLowerCase() : word.normalize('NFKD').replace(MARKS, '').toLowerCase();
}
const ASCII = /^[\x00-\x7f]*$/;

// Stems are cached: a project's vocabulary is small beside its word count, and Porter2 costs a few regexes a word.
const stemCache = new Map<string, string>();
const STEM_CACHE_MAX = 100_000;

/** The Porter2 stem of a folded word (numbers and words with digits stay as they are). */
export function stemWord(folded: string): string {
  let s = stemCache.get(folded);
  if (s !== undefined) return s;
  s = /^[a-z']+$/.test(folded) ? porter2(folded) : folded;
  if (stemCache.size >= STEM_CACHE_MAX) stemCache.clear();
  stemCache.set(folded, s);
  return s;
}

/** One word of a text as the index sees it. */
export interface TextWord {
  /** Start and end (exclusive) of the word in the original text, in UTF-16 units. */
  start: number;
  end: number;
  /** Folded, unstemmed. */
  folded: string;
  /** The term (stem); undefined for a stopword or an over-long word. */
  term: string | undefined;
  /** Position among the words of the text (stopwords counted), from 0. */
  position: number;
}

/**
 * Calls `visit` for every word of `text` in order. `maxChars` stops early (snippets look at the start of a huge
 * thought only). Linear in the text.
 */
export function forEachWord(text: string, visit: (word: TextWord) => boolean | void, maxChars = Infinity): void {
  WORD.lastIndex = 0;
  let position = 0;
  for (let m = WORD.exec(text); m; m = WORD.exec(text)) {
    if (m.index > maxChars) break;
    const folded = foldWord(m[0]);
    // A word made of marks only folds to nothing.
    if (folded === '') continue;
    const term = folded.length > MAX_WORD_LENGTH || ENGLISH_STOPWORDS.has(folded) ? undefined : stemWord(folded);
    if (visit({ start: m.index, end: m.index + m[0].length, folded, term, position: position++ }) === false) break;
  }
}

/** The terms of `text` with their positions (stopwords leave a gap), starting at `base`. */
export function textTerms(text: string, base = 0): { terms: string[]; positions: number[]; length: number } {
  const terms: string[] = [];
  const positions: number[] = [];
  const length = forEachTerm(text, (term, position) => {
    terms.push(term);
    positions.push(base + position);
  });
  return { terms, positions, length };
}

// What a word as written becomes (its term; null: a stopword or an over-long word, which keeps its position; false: a
// word of marks only, which folds to nothing and counts for nothing), cached for the words an index sees again and
// again. Long words are not cached (a huge thought of unique words must not fill the cache).
const termCache = new Map<string, string | null | false>();
const TERM_CACHE_MAX = 100_000;
const TERM_CACHE_WORD_MAX = 64;

function termOfWord(word: string): string | null | false {
  let t = termCache.get(word);
  if (t !== undefined) return t;
  const folded = foldWord(word);
  t = folded === '' ? false : folded.length > MAX_WORD_LENGTH || ENGLISH_STOPWORDS.has(folded) ? null : stemWord(folded);
  if (word.length <= TERM_CACHE_WORD_MAX) {
    if (termCache.size >= TERM_CACHE_MAX) termCache.clear();
    termCache.set(word, t);
  }
  return t;
}

/** ASCII letters and digits: what \p{L}, \p{N} and \p{M} match below U+0080. */
function isAsciiWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/**
 * Calls `visit(term, position)` for every indexed term of `text` in order — exactly the terms and positions
 * {@link forEachWord} gives, without its per-word objects (the index builder's hot loop). Returns the number of
 * positions (words, stopwords counted). ASCII is scanned by hand; from the first word with another character on, the
 * Unicode regex takes over (every word before it ended at an ASCII separator, so it finds the same words).
 */
export function forEachTerm(text: string, visit: (term: string, position: number) => void): number {
  const n = text.length;
  let position = 0;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (c >= 0x80) return regexTerms(text, i, position, visit);
    if (!isAsciiWordChar(c)) {
      i++;
      continue;
    }
    const start = i;
    do i++;
    while (i < n && isAsciiWordChar((c = text.charCodeAt(i))));
    if (i < n && c >= 0x80) return regexTerms(text, start, position, visit);
    const t = termOfWord(text.slice(start, i));
    if (t === null) position++;
    else if (t !== false) visit(t, position++);
  }
  return position;
}

function regexTerms(text: string, from: number, position: number, visit: (term: string, position: number) => void): number {
  const words = new RegExp(WORD.source, 'gu');
  words.lastIndex = from;
  for (let m = words.exec(text); m; m = words.exec(text)) {
    const t = termOfWord(m[0]);
    if (t === null) position++;
    else if (t !== false) visit(t, position++);
  }
  return position;
}
