import { foldedWords, forEachTerm } from './search-text';

/** No UTF-16 unit folds to more than 33 bytes (U+FDFA, checked over every code point): shorter words are within 2,000. */
const LONG_WORD_UNITS = 61;

/**
 * What one node may hold and still be searched alike on every store (docs/knowledge-graph.md, "Search limits").
 *
 * The files index has no limit of its own, but PostgreSQL's tsvector has hard ones, and past them it indexes a node
 * differently (or not at all): a lexeme keeps at most 255 positions (the rest are dropped, so a phrase there is not
 * found), positions stop at 16,383 (every later word shares it: a phrase there is not found, or found wrongly), a word
 * of 2,047 bytes or more is dropped without a position (the files skip it alike: it would be found nowhere), and a
 * vector whose lexemes and positions take more than 1,048,575 bytes is an error ("string is too long for tsvector"). An add past any of these
 * is refused on both stores, before anything is written: the agent is told which limit and can split the thought,
 * where silently indexing a part of it would lose what it wrote for every later search. The limits are PostgreSQL's
 * rounded down, a margin for the few words the two tokenizers might count differently.
 */
export const SEARCH_LIMITS = {
  /** Characters of a thought (the add_nodes schema's maxLength: a 50 MB thought is refused before any word is read). */
  thoughtLength: 200_000,
  /** Words of a node, stopwords counted (thought, tags, artifact names and paths together). PostgreSQL: 16,383 positions. */
  words: 16_000,
  /** Occurrences of one search term in a node. PostgreSQL: 255 positions per lexeme. */
  repeats: 250,
  /** UTF-8 bytes of one word, folded. PostgreSQL drops words of 2,047 bytes and more. */
  wordBytes: 2_000,
  /** Bytes the node's terms take in a tsvector (each distinct term, aligned, plus 2 bytes per position and 2 per count). PostgreSQL: 1,048,575. */
  indexBytes: 1_000_000,
} as const;

export type SearchLimit = keyof typeof SEARCH_LIMITS;

/** A node's text past a search limit: which limit, its maximum, what the node has, and one line saying so. */
export interface SearchLimitBreach {
  limit: SearchLimit;
  max: number;
  size: number;
  message: string;
}

/** The fields of a node that are searched. */
export interface SearchedText {
  thought: string;
  tags?: readonly string[];
  artifacts?: ReadonlyArray<{ name?: unknown; path?: unknown }>;
}

/**
 * The first search limit the node's text passes, or undefined when every store indexes all of it alike. Linear in the
 * text, the character limit first (so a huge thought costs nothing); the message is meant to follow a field name
 * (`nodes/0/thought: …`).
 */
export function searchLimitBreach(node: SearchedText): SearchLimitBreach | undefined {
  const L = SEARCH_LIMITS;
  if (node.thought.length > L.thoughtLength) {
    return breach('thoughtLength', node.thought.length, `at most ${n(L.thoughtLength)} characters (got ${n(node.thought.length)}); split it into several nodes`);
  }
  // The texts PostgreSQL's vector is made of, in its order (migration 3): the thought, the tags, the artifacts'
  // names then paths.
  const artifacts = node.artifacts ?? [];
  const texts = [
    node.thought,
    (node.tags ?? []).join(' '),
    [...artifacts.map((a) => a.name), ...artifacts.map((a) => a.path)].filter((t): t is string => typeof t === 'string').join(' '),
  ];
  // The few words long enough to pass the byte limit are folded and measured; every word is counted by the index's own
  // term scan (folding every word cost three times as much).
  for (const text of texts) {
    const bytes = longestLongWord(text);
    if (bytes > L.wordBytes) return breach('wordBytes', bytes, `a word can be at most ${n(L.wordBytes)} bytes long to be searched (one has ${n(bytes)})`);
  }
  // n words take at least 2n - 1 characters, so a short node (most are) has too few words to repeat one 251 times,
  // and then also too few for the word and byte limits: it is not scanned again (the scan cost a files add ~15 %).
  if (texts.reduce((a, t) => a + t.length, 0) <= 2 * L.repeats - 3) return undefined;
  const terms = new Map<string, number>();
  let words = 0;
  const count = (term: string) => void terms.set(term, (terms.get(term) ?? 0) + 1);
  for (const text of texts) words += forEachTerm(text, count);
  if (words > L.words) {
    return breach('words', words, `at most ${n(L.words)} words can be searched in one node (its thought, tags and artifacts have ${n(words)}); split it into several nodes`);
  }
  let most: [string, number] = ['', 0];
  let units = 0;
  for (const [term, count] of terms) {
    if (count > most[1]) most = [term, count];
    units += term.length;
  }
  if (most[1] > L.repeats) {
    return breach('repeats', most[1], `a word can be searched at most ${n(L.repeats)} times in one node ('${most[0]}' appears ${n(most[1])} times); split it into several nodes`);
  }
  // A lexeme, padded to an even offset, its count of positions and the positions (PostgreSQL's make_tsvector); UTF-8
  // measured only when 3 bytes a unit could pass the limit.
  const bound = (b: number) => b + 3 * terms.size + 2 * words;
  const indexBytes = bound(3 * units) <= L.indexBytes ? 0 : bound([...terms.keys()].reduce((a, t) => a + utf8Length(t), 0));
  if (indexBytes > L.indexBytes) {
    return breach('indexBytes', indexBytes, `its words can take at most ${n(L.indexBytes)} bytes in the search index (they take ${n(indexBytes)}); split it into several nodes`);
  }
  return undefined;
}

/**
 * The folded UTF-8 length of the longest word of `text` that could pass 2,000 bytes, or 0. A scan of char codes finds
 * the runs without an ASCII separator that are long enough (a superset of such words: every letter, digit or mark is
 * ASCII alphanumeric or not ASCII); only those are split into words and folded — the Unicode word regex over every
 * text, or even a regex of one character class, cost as much as tokenizing it.
 */
function longestLongWord(text: string): number {
  let longest = 0;
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if (c >= 0x80 || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57)) continue;
    if (i - start >= LONG_WORD_UNITS) {
      const run = text.slice(start, i);
      // A folded word of 2,000 bytes has at least 667 UTF-16 units (3 bytes a unit at most).
      for (const w of foldedWords(run)) if (w.length >= 667) longest = Math.max(longest, utf8Length(w));
    }
    start = i + 1;
  }
  return longest;
}

function breach(limit: SearchLimit, size: number, message: string): SearchLimitBreach {
  return { limit, max: SEARCH_LIMITS[limit], size, message };
}

const n = (x: number) => x.toLocaleString('en-US');

/** UTF-8 length of a string (the domain has no Buffer): 1 byte below U+0080, 2 below U+0800, 4 for a surrogate pair, else 3. */
export function utf8Length(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
