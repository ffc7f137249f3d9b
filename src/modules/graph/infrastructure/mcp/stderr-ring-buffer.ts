/** Default number of bytes of a server's stderr kept for error messages: the tail is what explains a crash. */
export const DEFAULT_STDERR_TAIL_BYTES = 4096;

/**
 * Keeps the last `capacity` bytes written to it (a child process's stderr), so an error can quote what the process
 * said last without holding everything it ever wrote. Memory stays under `capacity` plus one chunk.
 */
export class StderrRingBuffer {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(readonly capacity: number = DEFAULT_STDERR_TAIL_BYTES) {
    if (!Number.isInteger(capacity) || capacity <= 0) {
      throw new RangeError(`stderr buffer capacity must be a positive integer, got ${capacity}`);
    }
  }

  append(chunk: Buffer | string): void {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (buf.length === 0) return;
    if (buf.length >= this.capacity) {
      // Copy, so a large stream chunk is not kept alive through a small view of it.
      this.chunks = [Buffer.from(buf.subarray(buf.length - this.capacity))];
      this.size = this.capacity;
      return;
    }
    this.chunks.push(buf);
    this.size += buf.length;
    // Drop whole chunks that lie entirely before the last `capacity` bytes; the first kept one is cut in tail().
    while (this.chunks.length > 1 && this.size - this.chunks[0].length >= this.capacity) {
      this.size -= this.chunks[0].length;
      this.chunks.shift();
    }
  }

  /** The last `capacity` bytes as text (a multi-byte character cut at the start is dropped), trailing space trimmed. */
  tail(): string {
    if (this.size === 0) return '';
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.size);
    let start = Math.max(0, all.length - this.capacity);
    // Skip UTF-8 continuation bytes (10xxxxxx) so the text never starts with half a character.
    while (start < all.length && (all[start] & 0xc0) === 0x80) start++;
    return all.subarray(start).toString('utf8').trimEnd();
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
  }
}
