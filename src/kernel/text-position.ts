/**
 * Where a parser's error offset points, for a person: an offset at or past the end of the content (an unclosed
 * bracket or quote the parser notices only when the text runs out) points just after the last character that is not
 * white space — in a 9-line file that ends with a newline, on line 9, never on a line 10 the file does not have.
 */
export function clampToContent(text: string, offset: number): { offset: number; atEnd: boolean } {
  let end = text.length;
  while (end > 0 && /\s/.test(text[end - 1]!)) end--;
  return offset >= end ? { offset: end, atEnd: true } : { offset: Math.max(0, offset), atEnd: false };
}

/** 1-based line and column of `offset` in `text` (after {@link clampToContent}); `\n`, `\r\n` and `\r` end lines. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

/** The end-of-file note a message gets when its position was clamped. */
export const AT_END_OF_FILE = ' (at the end of the file)';
