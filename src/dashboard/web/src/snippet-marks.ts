/** A run of a search snippet's text, as the thought has it, and whether search_nodes marked it as a match. */
export interface SnippetPart {
  text: string;
  marked: boolean;
}

/**
 * A search_nodes snippet read back (src/modules/knowledge/domain/search/snippet.ts): `**` opens or closes a mark and
 * `\x` is the character x — the server escapes the thought's own `\` and `*`, so a `**bold**` in a thought shows as
 * written and never as a highlight. A lone `*` (the server sends none) is kept as it is.
 */
export function snippetParts(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  let marked = false;
  let text = '';
  const close = () => {
    if (text) parts.push({ text, marked });
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
  return parts;
}
