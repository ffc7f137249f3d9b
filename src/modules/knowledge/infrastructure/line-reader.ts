import * as fs from 'node:fs/promises';
import { CancelledError } from '../../../kernel/errors';

/**
 * Streaming line readers over NDJSON files, working on bytes so every line comes with its byte offset.
 * They hand each line to a synchronous callback (no promise per line: a million lines stay cheap) and await the
 * optional `afterChunk` hook between chunks, which is where writers flush and backpressure happens.
 * Memory: one chunk plus the longest line.
 */

/** Default chunk size: 256 KiB forward (small enough to keep RSS flat at a million nodes, large enough to amortize reads), 64 KiB backward (a first page needs only the file's tail). */
export const FORWARD_CHUNK = 1 << 18;
export const BACKWARD_CHUNK = 1 << 16;

const NL = 10;

export interface ForwardOptions {
  signal?: AbortSignal;
  chunkSize?: number;
  afterChunk?: () => Promise<void>;
}

/**
 * Calls `onLine(text, offset, lineNo, terminated)` for every line of `file` from the start (`\r\n` endings are
 * trimmed; `terminated` is false only for a last line without `\n`, such as a torn write). A missing file has no lines.
 */
export async function forEachLine(
  file: string,
  onLine: (text: string, offset: number, lineNo: number, terminated: boolean) => void,
  opts: ForwardOptions = {},
): Promise<{ lines: number; bytes: number }> {
  const handle = await openIfExists(file);
  if (!handle) return { lines: 0, bytes: 0 };
  const chunkSize = opts.chunkSize ?? FORWARD_CHUNK;
  let lineNo = 0;
  let filePos = 0;
  let carry: Buffer | null = null;
  let carryStart = 0;
  try {
    for (;;) {
      if (opts.signal?.aborted) throw new CancelledError();
      // A fresh buffer per read: `carry` may still point into the previous one.
      const chunk = Buffer.allocUnsafe(chunkSize);
      const { bytesRead } = await handle.read(chunk, 0, chunkSize, filePos);
      if (bytesRead === 0) break;
      const data: Buffer = carry ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
      const dataStart = carry ? carryStart : filePos;
      filePos += bytesRead;
      let start = 0;
      let nl: number;
      while ((nl = data.indexOf(NL, start)) !== -1) {
        const end = nl > start && data[nl - 1] === 13 ? nl - 1 : nl;
        onLine(data.toString('utf8', start, end), dataStart + start, ++lineNo, true);
        start = nl + 1;
      }
      carry = start < data.length ? data.subarray(start) : null;
      carryStart = dataStart + start;
      if (opts.afterChunk) await opts.afterChunk();
    }
    if (carry && carry.length > 0) {
      onLine(carry.toString('utf8'), carryStart, ++lineNo, false);
      if (opts.afterChunk) await opts.afterChunk();
    }
    return { lines: lineNo, bytes: filePos };
  } finally {
    await handle.close();
  }
}

/** An open file read newest-first; the identity (inode) lets cursors notice a rebuild. */
export interface BackwardSource {
  ino: number;
  size: number;
}

/**
 * Calls `onLine(text, offset)` for each line that ends before byte `from` (default: the end of the file), from the
 * last towards the first, until it returns false. Returns the file's identity and the offset of the last line
 * visited (0 when the start was reached without stopping).
 * `check(source)` runs once before reading (cursor validation) and may throw.
 */
export async function forEachLineBackward(
  file: string,
  onLine: (text: string, offset: number) => boolean,
  opts: { from?: number; signal?: AbortSignal; chunkSize?: number; check?: (src: BackwardSource, readByte: (pos: number) => Promise<number>) => Promise<void> } = {},
): Promise<{ source: BackwardSource; stoppedAt: number | null }> {
  const handle = await openIfExists(file);
  if (!handle) {
    const source = { ino: 0, size: 0 };
    if (opts.check) await opts.check(source, async () => -1);
    return { source, stoppedAt: null };
  }
  try {
    const stat = await handle.stat();
    const source = { ino: stat.ino, size: stat.size };
    if (opts.check) {
      await opts.check(source, async (pos) => {
        const b = Buffer.alloc(1);
        const { bytesRead } = await handle.read(b, 0, 1, pos);
        return bytesRead === 1 ? b[0]! : -1;
      });
    }
    const chunkSize = opts.chunkSize ?? BACKWARD_CHUNK;
    let pos = Math.min(opts.from ?? stat.size, stat.size);
    // Bytes from the start of the line cut by the previous chunk's start up to the end of the data read so far.
    let carry: Buffer | null = null;
    while (pos > 0) {
      if (opts.signal?.aborted) throw new CancelledError();
      const n = Math.min(chunkSize, pos);
      const chunk = Buffer.allocUnsafe(n);
      const { bytesRead } = await handle.read(chunk, 0, n, pos - n);
      if (bytesRead !== n) break; // the file shrank under us (cannot happen while it is replaced by rename)
      pos -= n;
      const data: Buffer = carry ? Buffer.concat([chunk, carry]) : chunk;
      let end = data.length;
      // Walk the newlines from the end; the segment before the first one may be cut, unless we are at the start.
      let nl = lastNewline(data, end);
      // The last byte of the range is normally a newline ending the newest line: skip the empty segment after it.
      if (nl === end - 1) {
        end = nl;
        nl = lastNewline(data, end);
      }
      while (nl !== -1) {
        const text = trimCr(data.toString('utf8', nl + 1, end));
        if (text !== '' && !onLine(text, pos + nl + 1)) return { source, stoppedAt: pos + nl + 1 };
        end = nl;
        nl = lastNewline(data, end);
      }
      // data[0..end) is the start of a line that began in an earlier chunk (or at the file start).
      carry = data.subarray(0, end);
      if (pos === 0 && carry.length > 0) {
        const text = trimCr(carry.toString('utf8'));
        if (text !== '' && !onLine(text, 0)) return { source, stoppedAt: 0 };
        carry = null;
      } else if (carry.length > 0) {
        // Re-attach a trailing newline so the next round's "skip the empty last segment" logic stays uniform.
        carry = Buffer.concat([carry, Buffer.from([NL])]);
      }
    }
    return { source, stoppedAt: null };
  } finally {
    await handle.close();
  }
}

/** Index of the last `\n` before `end`, or -1 (guards Buffer.lastIndexOf, which reads a negative offset from the end). */
function lastNewline(data: Buffer, end: number): number {
  return end <= 0 ? -1 : data.lastIndexOf(NL, end - 1);
}

function trimCr(s: string): string {
  return s.endsWith('\r') ? s.slice(0, -1) : s;
}

async function openIfExists(file: string): Promise<fs.FileHandle | undefined> {
  try {
    return await fs.open(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
