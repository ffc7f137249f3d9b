type Porter2 = typeof import('wink-porter2-stemmer');
/** Loaded on the first word stemmed, not at start: a plain serve loads no package but the SDK (tests/e2e/cold-start-modules). */
let porter2: Porter2 | undefined;

/**
 * How text becomes search terms, the same for every store (docs/knowledge-graph.md, "Search"), and the same as
 * PostgreSQL's wg_knowledge_words + to_tsvector('english', …) (knowledge migration 3; checked lexeme for lexeme by
 * tests/integration/knowledge/knowledge-stemming-agreement.test.ts): the text is folded (Unicode compatibility
 * decomposition, the combining marks of the five diacritic blocks dropped, each character lower-cased on its own, as
 * PostgreSQL's lower() does — so a final Σ is σ, not ς); words are then runs of what a UTF-8 locale's [[:alnum:]]
 * holds (Unicode's Alphabetic property and decimal digits: letters, and marks such as Indic vowel signs, while a
 * virama or an emoji separates); English stopwords are dropped (their position still counts, so phrases keep their
 * gaps) and the rest stemmed with Porter2 — the Snowball English stemmer of PostgreSQL's `english` configuration,
 * which stems any word without an ASCII digit (`øresunds` → `øresund`) and leaves words with one (`x86`) and words
 * over 1,000 bytes as they are. So "Caching", "cachés" and "cache" are one term, `cach`.
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

/**
 * A word of 2,047 bytes (UTF-8) or more is not indexed and takes no position (PostgreSQL skips such a token before
 * numbering); a word over {@link MAX_STEM_BYTES} is indexed unstemmed (PostgreSQL's Snowball dictionary does not stem it).
 */
export const MAX_WORD_BYTES = 2046;
export const MAX_STEM_BYTES = 1000;

/**
 * What may hold a word before folding: anything but ASCII punctuation and space (a non-ASCII symbol may decompose to
 * letters, ㎏ → kg, or separate them, ½ → 1⁄2). Runs are folded, then split into words by {@link WORD_CHAR}.
 */
const RUN = /[^\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/gu;
/** [[:alnum:]] of a glibc UTF-8 locale (C.UTF-8, en_US.UTF-8), what wg_knowledge_words keeps. */
const WORD_CHARS = /[\p{Alphabetic}\p{Nd}]+/gu;
/** The combining marks wg_knowledge_words removes after decomposing (the five combining diacritical blocks). */
const DROPPED_MARKS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/gu;
const DROPPED_MARK = new RegExp(DROPPED_MARKS.source, 'u');
const ASCII = /^[\x00-\x7f]*$/;

/**
 * Lower case character by character, as PostgreSQL's lower() (towlower): JavaScript's only context rule, the final
 * sigma (and İ's dot, which decomposition has already split off), is avoided by lower-casing Σ first.
 */
function lowerEach(text: string): string {
  return text.replace(/\u03a3/g, '\u03c3').toLowerCase();
}

/** Folds text as wg_knowledge_words does before splitting: NFKD, the diacritic blocks' marks dropped, lower case. */
function foldText(text: string): string {
  return ASCII.test(text) ? text.toLowerCase() : lowerEach(text.normalize('NFKD').replace(DROPPED_MARKS, ''));
}

/**
 * The folded words of `text`, every one of them (the index skips those of 2,047 bytes or more; search-limits.ts
 * measures them).
 */
export function foldedWords(text: string): string[] {
  return foldText(text).match(WORD_CHARS) ?? [];
}

/** UTF-8 length of a folded word. */
function utf8Bytes(word: string): number {
  if (ASCII.test(word)) return word.length;
  let n = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

// Stems are cached: a project's vocabulary is small beside its word count, and Porter2 costs a few regexes a word.
const stemCache = new Map<string, string>();
const STEM_CACHE_MAX = 100_000;

/**
 * The Porter2 stem of a folded word. Words with an ASCII digit stay as they are (PostgreSQL's parser makes them a
 * `numword`, which `english` does not stem), as do words over {@link MAX_STEM_BYTES}; any other word — in any script:
 * PostgreSQL's parser calls letters outside ASCII a `word`, which it stems — is stemmed.
 */
export function stemWord(folded: string): string {
  let s = stemCache.get(folded);
  if (s !== undefined) return s;
  s = /[0-9]/.test(folded) || utf8Bytes(folded) > MAX_STEM_BYTES ? folded : snowballEnglish(folded);
  if (stemCache.size >= STEM_CACHE_MAX) stemCache.clear();
  stemCache.set(folded, s);
  return s;
}

/**
 * Porter2 as PostgreSQL's Snowball English stems: wink-porter2-stemmer but for the words it stems otherwise (found by
 * tests/integration/knowledge/knowledge-stemming-agreement.test.ts) — "howe", on Snowball's list of invariant words
 * but not on wink's; a bare "sses" (Snowball's sses → ss); and a lone vowel left by step 1b ("aed", "oings"), which
 * wink takes for a short syllable and gives an e ("ae") where Snowball's short syllable needs a consonant after it.
 */
function snowballEnglish(word: string): string {
  if (word === 'howe') return word;
  if (word === 'sses') return 'ss';
  // (A bare "ied" is step 1a's ie, "eed" and "eedly" step 1b's own rule.)
  const lone = /^(?:([aiou])(?:eds|edlys?)|([aou])ed|([aeiou])(?:ings?|inglys?))$/.exec(word);
  if (lone) return (lone[1] ?? lone[2] ?? lone[3])!;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  porter2 ??= require('wink-porter2-stemmer') as Porter2;
  return porter2(word);
}

/** One word of a text as the index sees it. */
export interface TextWord {
  /** Start and end (exclusive) of the word in the original text, in UTF-16 units. */
  start: number;
  end: number;
  /** Folded, unstemmed. */
  folded: string;
  /** The term (stem); undefined for a stopword (an over-long word is no word: it is skipped, without a position). */
  term: string | undefined;
  /** Position among the words of the text (stopwords counted), from 0. */
  position: number;
}

/** One word of a run of text: folded, its term (null: a stopword) and its span relative to the run. */
interface RunWord {
  folded: string;
  term: string | null;
  start: number;
  end: number;
}

// The words of a run of text as written, cached for the runs an index sees again and again. Long runs are not cached
// (a huge thought of unique words must not fill the cache).
const runCache = new Map<string, readonly RunWord[]>();
const RUN_CACHE_MAX = 100_000;
const RUN_CACHE_MAX_LENGTH = 64;

function wordOf(folded: string, start: number, end: number): RunWord | undefined {
  if (folded.length > MAX_WORD_BYTES / 3 && utf8Bytes(folded) > MAX_WORD_BYTES) return undefined;
  return { folded, term: ENGLISH_STOPWORDS.has(folded) ? null : stemWord(folded), start, end };
}

/**
 * The words of one run ({@link RUN}): an ASCII run is one word; another is folded character by character (each
 * folded character remembers the one it came from, for the words' spans) and split into words. When decomposition
 * must reorder combining marks (canonical ordering, rare), the run is folded whole and each word spans the run.
 */
function runWords(run: string): readonly RunWord[] {
  const cached = runCache.get(run);
  if (cached) return cached;
  const words: RunWord[] = [];
  if (ASCII.test(run)) {
    const w = wordOf(run.toLowerCase(), 0, run.length);
    if (w) words.push(w);
  } else {
    let decomposed = '';
    const from: number[] = [];
    for (let i = 0; i < run.length; ) {
      const len = run.codePointAt(i)! > 0xffff ? 2 : 1;
      const d = run.slice(i, i + len).normalize('NFKD');
      for (let k = 0; k < d.length; k++) from.push(i);
      decomposed += d;
      i += len;
    }
    if (decomposed.normalize('NFKD') !== decomposed) {
      for (const m of foldText(run).matchAll(WORD_CHARS)) {
        const w = wordOf(m[0], 0, run.length);
        if (w) words.push(w);
      }
    } else {
      let folded = '';
      const source: number[] = [];
      for (let k = 0; k < decomposed.length; ) {
        const len = decomposed.codePointAt(k)! > 0xffff ? 2 : 1;
        const c = decomposed.slice(k, k + len);
        if (!DROPPED_MARK.test(c)) {
          const l = lowerEach(c);
          for (let j = 0; j < l.length; j++) source.push(from[k]!);
          folded += l;
        }
        k += len;
      }
      for (const m of folded.matchAll(WORD_CHARS)) {
        const last = source[m.index + m[0].length - 1]!;
        const w = wordOf(m[0], source[m.index]!, last + (run.codePointAt(last)! > 0xffff ? 2 : 1));
        if (w) words.push(w);
      }
    }
  }
  if (run.length <= RUN_CACHE_MAX_LENGTH) {
    if (runCache.size >= RUN_CACHE_MAX) runCache.clear();
    runCache.set(run, words);
  }
  return words;
}

/**
 * Calls `visit` for every word of `text` in order. `maxChars` stops early (snippets look at the start of a huge
 * thought only). Linear in the text.
 */
export function forEachWord(text: string, visit: (word: TextWord) => boolean | void, maxChars = Infinity): void {
  const runs = new RegExp(RUN.source, 'gu');
  let position = 0;
  for (let m = runs.exec(text); m; m = runs.exec(text)) {
    if (m.index > maxChars) break;
    for (const w of runWords(m[0])) {
      const word = { start: m.index + w.start, end: m.index + w.end, folded: w.folded, term: w.term ?? undefined, position: position++ };
      if (visit(word) === false) return;
    }
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

/** ASCII letters and digits: what {@link WORD_CHARS} matches below U+0080. */
function isAsciiWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/**
 * Calls `visit(term, position)` for every indexed term of `text` in order — exactly the terms and positions
 * {@link forEachWord} gives, without its per-word objects (the index builder's hot loop). Returns the number of
 * positions (words, stopwords counted). ASCII is scanned by hand; from the first word with another character on, the
 * run regex takes over (every word before it ended at an ASCII separator, which ends a run too).
 */
export function forEachTerm(text: string, visit: (term: string, position: number) => void): number {
  const n = text.length;
  let position = 0;
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (c >= 0x80) return runTerms(text, i, position, visit);
    if (!isAsciiWordChar(c)) {
      i++;
      continue;
    }
    const start = i;
    do i++;
    while (i < n && isAsciiWordChar((c = text.charCodeAt(i))));
    if (i < n && c >= 0x80) return runTerms(text, start, position, visit);
    const t = asciiTerm(text.slice(start, i));
    if (t === null) position++;
    else if (t !== false) visit(t, position++);
  }
  return position;
}

// An ASCII word's term (null: a stopword; false: too long, no word), cached apart from the runs: the index builder's
// hot path, where a run's array and its iteration cost a fifth more.
const asciiTerms = new Map<string, string | null | false>();

function asciiTerm(word: string): string | null | false {
  let t = asciiTerms.get(word);
  if (t !== undefined) return t;
  const w = wordOf(word.toLowerCase(), 0, word.length);
  t = w === undefined ? false : w.term;
  if (word.length <= RUN_CACHE_MAX_LENGTH) {
    if (asciiTerms.size >= RUN_CACHE_MAX) asciiTerms.clear();
    asciiTerms.set(word, t);
  }
  return t;
}

function runTerms(text: string, from: number, position: number, visit: (term: string, position: number) => void): number {
  const runs = new RegExp(RUN.source, 'gu');
  runs.lastIndex = from;
  for (let m = runs.exec(text); m; m = runs.exec(text)) {
    for (const w of runWords(m[0])) {
      if (w.term === null) position++;
      else visit(w.term, position++);
    }
  }
  return position;
}
