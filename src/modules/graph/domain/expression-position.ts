import type { SourcePosition } from './types';

/**
 * Where character `offset` of an expression sits in the graph file's text, searching from the line of its node:
 * a multi-line expression (a YAML block scalar) by its lines, indentation aside; a one-line one as written, or
 * JSON-escaped (a JSON file). Undefined when the text is not found (the node's own position is used then).
 */
export function locateExpression(text: string, from: SourcePosition, source: string, offset: number): SourcePosition | undefined {
  const fileLines = text.split(/\r\n|\r|\n/);
  const exprLines = source.replace(/\n+$/, '').split('\n');
  let k = 0;
  let c = offset;
  while (k < exprLines.length - 1 && c > exprLines[k]!.length) {
    c -= exprLines[k]!.length + 1;
    k++;
  }
  const start = Math.max(0, from.line - 1);
  const end = Math.min(fileLines.length, start + 2000);
  if (exprLines.length > 1) {
    const indent = (s: string) => s.length - s.trimStart().length;
    for (let l = start; l + exprLines.length <= end; l++) {
      if (!exprLines.every((e, j) => fileLines[l + j]!.trim() === e.trim())) continue;
      const fileLine = fileLines[l + k]!;
      return { line: l + k + 1, column: indent(fileLine) + Math.max(0, c - indent(exprLines[k]!)) + 1 };
    }
    return undefined;
  }
  const escaped = JSON.stringify(source).slice(1, -1);
  for (let l = start; l < end; l++) {
    const line = fileLines[l]!;
    const plain = l === start ? line.indexOf(source, Math.max(0, from.column - 1)) : line.indexOf(source);
    if (plain >= 0 && source.length > 0) return { line: l + 1, column: plain + c + 1 };
    const json = line.indexOf(escaped);
    if (json >= 0 && escaped.length > 0) return { line: l + 1, column: json + JSON.stringify(source.slice(0, c)).length - 2 + 1 };
  }
  return undefined;
}
