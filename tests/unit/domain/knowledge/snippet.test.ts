import { forEachWord, makeSnippet, termMatcher } from '../../../../src/modules/knowledge/domain/search';
import { snippetParts, type SnippetPart } from '../../../../src/dashboard/web/src/snippet-marks';

/**
 * search_nodes' snippet marks matches with `**` and escapes the thought's own `\` and `*` (`\\`, `\*`), so a thought's
 * markdown cannot fake a mark; the dashboard reads it back with snippetParts. Both ends are checked together.
 */
const retry = termMatcher(['retri'], []);
const marked = (parts: SnippetPart[]) => parts.filter((p) => p.marked).map((p) => p.text);
const plain = (parts: SnippetPart[]) => parts.map((p) => p.text).join('');

describe('makeSnippet escapes the thought, marks only matches', () => {
  it.each<[string, string, string[]]>([
    // [thought, snippet, marked words as the dashboard reads them]
    ['Use **bold** before retry here', 'Use \\*\\*bold\\*\\* before **retry** here', ['retry']],
    // docs/knowledge-graph.md's example.
    ['the **retry** policy, C:\\tmp', 'the \\*\\***retry**\\*\\* policy, C:\\\\tmp', ['retry']],
    ['a * lone star, then retry, then * again', 'a \\* lone star, then **retry**, then \\* again', ['retry']],
    ['C:\\temp\\ retry \\* and \\\\', 'C:\\\\temp\\\\ **retry** \\\\\\* and \\\\\\\\', ['retry']],
    ['retry', '**retry**', ['retry']],
    ['retry then retries', '**retry** then **retries**', ['retry', 'retries']],
    ['*retry*', '\\***retry**\\*', ['retry']],
  ])('%j → %j', (thought, snippet, words) => {
    expect(makeSnippet(thought, retry)).toBe(snippet);
    const parts = snippetParts(snippet);
    expect(marked(parts)).toEqual(words);
    expect(plain(parts)).toBe(thought);
  });

  it('escapes the first line it falls back to when the text has no match (a hit in tags or artifacts)', () => {
    const s = makeSnippet('**Title** with a \\ path\nmore', retry);
    expect(s).toBe('\\*\\*Title\\*\\* with a \\\\ path');
    expect(snippetParts(s)).toEqual([{ text: '**Title** with a \\ path', marked: false }]);
  });

  it('a mark after stray stars is still the match: the marks never flip', () => {
    // With bare `**` marks and a split on `**`, "bold" was highlighted and "retry" was not.
    const parts = snippetParts(makeSnippet('**bold** and a * then retry and *more* retry', retry));
    expect(marked(parts)).toEqual(['retry', 'retry']);
    expect(plain(parts)).toBe('**bold** and a * then retry and *more* retry');
  });

  it('reads back to the thought and its matched words for thoughts full of stars and backslashes', () => {
    // A fixed sequence (no Math.random): the same cases every run.
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    const pieces = ['retry', 'retries', 'bold', '*', '**', '\\', '\\*', ' ', ' ', '_', 'x'];
    for (let round = 0; round < 300; round++) {
      let thought = 'retry ';
      while (thought.length < 120) thought += pieces[next(pieces.length)];
      const parts = snippetParts(makeSnippet(thought, retry));
      expect(plain(parts)).toBe(thought);
      // Every matched word is marked, and only those.
      const words: string[] = [];
      forEachWord(thought, (w) => void (w.term !== undefined && retry(w.term) && words.push(thought.slice(w.start, w.end))));
      expect(words.length).toBeGreaterThan(0);
      expect(marked(parts)).toEqual(words);
    }
  });

  it('escapes a cut window the same way: the text shown is a piece of the thought, the ellipses aside', () => {
    const thought = `${'a *b\\ '.repeat(40)}retry${' c* \\d'.repeat(60)}`;
    const s = makeSnippet(thought, retry);
    expect(s.startsWith('…') && s.endsWith('…')).toBe(true);
    const parts = snippetParts(s);
    expect(marked(parts)).toEqual(['retry']);
    expect(thought).toContain(plain(parts).slice(1, -1));
    expect(plain(parts).length).toBeGreaterThan(150);
  });
});

describe('snippetParts', () => {
  it('reads marks, escapes and text between them', () => {
    expect(snippetParts('…the **exponential** **backoff** \\*not\\* a mark…')).toEqual([
      { text: '…the ', marked: false },
      { text: 'exponential', marked: true },
      { text: ' ', marked: false },
      { text: 'backoff', marked: true },
      { text: ' *not* a mark…', marked: false },
    ]);
  });

  it('keeps a lone star and a trailing backslash as written', () => {
    expect(snippetParts('a * b \\')).toEqual([{ text: 'a * b \\', marked: false }]);
  });
});
