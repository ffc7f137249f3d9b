/** Default bytes of each output stream's tail in a validation answer: 8 KiB (`--output-tail`, `output_tail_bytes`). */
export const DEFAULT_OUTPUT_TAIL_BYTES = 8 * 1024;
/** Bytes of each stream kept in an attempt record (error_logs): 4 KiB, so the graph file stays small. */
export const ATTEMPT_RECORD_TAIL_BYTES = 4 * 1024;
/** Attempt records kept per node in the graph file; older ones live only in the transition log. */
export const MAX_ATTEMPT_RECORDS = 20;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The last `maxBytes` bytes of `text` in UTF-8, cut at a character boundary (never half a character), and whether
 * anything was cut.
 */
export function utf8Tail(text: string, maxBytes: number): { text: string; cut: boolean } {
  // A string of n UTF-16 units is at most 3n bytes: short strings need no encoding.
  if (text.length * 3 <= maxBytes) return { text, cut: false };
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return { text, cut: false };
  let start = bytes.length - Math.max(0, maxBytes);
  while (start < bytes.length && (bytes[start] & 0xc0) === 0x80) start += 1;
  return { text: decoder.decode(bytes.subarray(start)), cut: true };
}
