import { snippetRuns } from '../modules/knowledge';

/**
 * A search_nodes snippet for a terminal: the thought's characters as written (its `\` and `*` unescaped) and the
 * matches in bold on a terminal that takes colour (not when NO_COLOR is set), between `[` and `]` elsewhere (a pipe,
 * a file: --json has the snippet as the tool answers it).
 */
export function snippetText(snippet: string, opts: { color: boolean }): string {
  return snippetRuns(snippet)
    .map((r) => (!r.marked ? r.text : opts.color ? `\x1b[1m${r.text}\x1b[22m` : `[${r.text}]`))
    .join('');
}

/** Whether stdout takes colour: a terminal, and NO_COLOR unset (https://no-color.org). */
export function stdoutTakesColor(): boolean {
  return Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
}
