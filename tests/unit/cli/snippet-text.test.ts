import { snippetText } from '../../../src/cli/snippet-text';
import { escapeSnippetText, makeSnippet, termMatcher } from '../../../src/modules/knowledge/domain';

describe('the CLI prints a snippet as the thought has it, its matches marked its own way', () => {
  const snippet = makeSnippet('Retry with **care**: a*b globs \\ and a retry budget', termMatcher(['retri'], []));

  it('unescapes the thought\u2019s own \\ and * and brackets the matches off a terminal', () => {
    expect(snippet).toContain('\\*\\*care\\*\\*');
    expect(snippetText(snippet, { color: false })).toBe('[Retry] with **care**: a*b globs \\ and a [retry] budget');
  });

  it('puts the matches in bold on a terminal, nothing else changed', () => {
    expect(snippetText(snippet, { color: true })).toBe('\x1b[1mRetry\x1b[22m with **care**: a*b globs \\ and a \x1b[1mretry\x1b[22m budget');
  });

  it('a snippet with no mark is its text unescaped', () => {
    expect(snippetText(escapeSnippetText('plain *text* \\ here'), { color: false })).toBe('plain *text* \\ here');
  });
});
