/** Lines of a server's stderr that say what went wrong (Node's "Error: Cannot find module ...", "ENOENT", ...). */
const EXPLAINING = /\b(error|cannot|can't|could not|not found|no such|enoent|eacces|eaddrinuse|econnrefused|denied|refused|failed|fatal|exception|invalid|missing|unexpected|panic)\b/i;

/** Longest stderr excerpt put into a one-line error message; the whole tail stays in the error's details. */
export const STDERR_SUMMARY_CHARS = 600;
const LINE_CHARS = 240;

/**
 * The part of a server's stderr tail worth putting in a one-line error: every line that names an error (in order,
 * each once), then the last line, joined with " | ". A plain cut of the last N characters loses the line that
 * explains a failed start — Node prints "Error: Cannot find module '...'" first and a require stack and its own version
 * after it. Stack frames (`    at ...`) are left out. Falls back to the end of the tail when no line names an error.
 */
export function summarizeStderr(tail: string, maxChars = STDERR_SUMMARY_CHARS): string {
  const lines = tail
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !/^at\s/.test(l));
  if (lines.length === 0) return '';
  const picked: string[] = [];
  for (const l of lines) if (EXPLAINING.test(l) && !picked.includes(l)) picked.push(l);
  const last = lines[lines.length - 1]!;
  if (!picked.includes(last)) picked.push(last);
  const cut = (l: string) => (l.length > LINE_CHARS ? `${l.slice(0, LINE_CHARS)}…` : l);
  let out = '';
  for (const l of picked.map(cut)) {
    const next = out ? `${out} | ${l}` : l;
    if (next.length > maxChars) break;
    out = next;
  }
  // Even the first picked line did not fit: show its start.
  return out || cut(picked[0]!).slice(0, maxChars);
}
