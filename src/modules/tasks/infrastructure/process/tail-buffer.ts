/**
 * Keeps the last `cap` bytes of a stream without holding more than `cap` plus one chunk in memory.
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  /** True once bytes were dropped from the front. */
  truncated = false;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    // Drop whole chunks from the front while the rest still covers the cap.
    while (this.chunks.length > 1 && this.size - this.chunks[0].length >= this.cap) {
      this.size -= this.chunks.shift()!.length;
      this.truncated = true;
    }
    if (this.size > this.cap) this.truncated = true;
  }

  /** The kept tail as UTF-8 text (invalid bytes replaced; a character cut at the front is dropped). */
  text(): string {
    let buf = Buffer.concat(this.chunks, this.size);
    if (buf.length > this.cap) {
      buf = buf.subarray(buf.length - this.cap);
      let skip = 0;
      while (skip < 3 && skip < buf.length && (buf[skip] & 0xc0) === 0x80) skip++;
      buf = buf.subarray(skip);
    }
    return buf.toString('utf8');
  }
}

/** The last non-empty line of a chunk of output, trimmed and shortened to `max` characters. */
export function lastLineOf(text: string, max = 200): string | undefined {
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    // eslint-disable-next-line no-control-regex
    const line = lines[i].replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '').trim();
    if (line) return line.length > max ? line.slice(0, max - 1) + '…' : line;
  }
  return undefined;
}
