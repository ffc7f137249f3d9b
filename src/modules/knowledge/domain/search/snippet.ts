import { firstLine } from '../knowledge-node';
import { forEachWord } from './search-text';

/** Marks around a matching word in a snippet. */
export const MARK_OPEN = '**';
export const MARK_CLOSE = '**';
export const SNIPPET_CHARS = 200;
/** Only the start of a huge thought is looked at for a snippet (a 50 MB thought costs the same as a 2 MB one). */
const SNIPPET_SCAN_CHARS = 2_000_000;

/** Does a term of the text match the query? Exact terms, or one of the prefixes. */
export type TermMatcher = (term: string) => boolean;

export function termMatcher(terms: readonly string[], prefixes: readonly string[]): TermMatcher {
  const exact = new Set(terms);
  return (term) => exact.has(term) || prefixes.some((p) => term.startsWith(p));
}

/**
 * The text's own `\` and `*` escaped markdown-style (`\\`, `\*`): in a snippet `**` is then only ever a mark, so a
 * thought holding `**bold**` or a lone `*` cannot fake a highlight or flip the marks after it, and markdown shows the
 * thought's characters as written. The dashboard reads it back (src/dashboard/web/src/snippet-marks.ts).
 */
export function escapeSnippetText(text: string): string {
  return text.replace(/[\\*]/g, '\\$&');
}

/**
 * About {@link SNIPPET_CHARS} characters of `text` around its first matching word, every matching word in it marked
 * `**like this**`, an ellipsis where text was cut; newlines become spaces; the text's `\` and `*` escaped
 * ({@link escapeSnippetText}). No match in the text (the hit was in its tags or artifacts): its first line, escaped.
 */
export function makeSnippet(text: string, matches: TermMatcher): string {
  const spans: Array<[number, number]> = [];
  let firstAt = -1;
  let windowEnd = Infinity;
  forEachWord(
    text,
    (w) => {
      if (w.start >= windowEnd) return false;
      if (w.term === undefined || !matches(w.term)) return;
      if (firstAt < 0) {
        firstAt = w.start;
        const from = Math.max(0, w.start - SNIPPET_CHARS / 4);
        windowEnd = from + SNIPPET_CHARS;
      }
      spans.push([w.start, w.end]);
    },
    SNIPPET_SCAN_CHARS,
  );
  if (firstAt < 0) return escapeSnippetText(firstLine(text, SNIPPET_CHARS));
  let from = Math.max(0, firstAt - SNIPPET_CHARS / 4);
  // Start at a word boundary.
  if (from > 0) {
    const space = text.lastIndexOf(' ', from);
    from = space >= 0 && firstAt - space < SNIPPET_CHARS / 2 ? space + 1 : from;
  }
  let to = Math.min(text.length, from + SNIPPET_CHARS);
  if (to < text.length) {
    const space = text.lastIndexOf(' ', to);
    if (space > firstAt) to = space;
  }
  let out = from > 0 ? '…' : '';
  let at = from;
  for (const [s, e] of spans) {
    if (e > to) break;
    // The words of one run whose folding reordered marks all span the run: mark it once.
    if (s < at) continue;
    // A matched word is letters, digits and marks only (ASCII punctuation ends a run): nothing in it to escape.
    out += escapeSnippetText(text.slice(at, s)) + MARK_OPEN + text.slice(s, e) + MARK_CLOSE;
    at = e;
  }
  out += escapeSnippetText(text.slice(at, to)) + (to < text.length ? '…' : '');
  return out.replace(/\s*\r?\n\s*/g, ' ');
}

/** A run of a snippet's text as the thought has it, and whether it is a marked match. */
export interface SnippetRun {
  text: string;
  marked: boolean;
}

/**
 * A snippet read back: `**` opens or closes a mark, `\x` is the character x ({@link escapeSnippetText}). For
 * readers that show the marks their own way (the CLI; the dashboard has the same reading in its bundle,
 * src/dashboard/web/src/snippet-marks.ts).
 */
export function snippetRuns(snippet: string): SnippetRun[] {
  const runs: SnippetRun[] = [];
  let marked = false;
  let text = '';
  const close = () => {
    if (text) runs.push({ text, marked });
    text = '';
  };
  for (let i = 0; i < snippet.length; i++) {
    const c = snippet[i];
    if (c === '\\' && i + 1 < snippet.length) text += snippet[++i];
    else if (c === '*' && snippet[i + 1] === '*') {
      close();
      marked = !marked;
      i++;
    } else text += c;
  }
  close();
  return runs;
}
