import * as fs from 'node:fs/promises';
import { CancelledError } from '../../../kernel/errors';

/**
 * Streaming line readers over NDJSON files, working on bytes so every line comes with its byte offset and its raw
 * bytes (a rebuild keeps lines it does not change byte for byte, invalid UTF-8 included).
 * They hand each line to a synchronous callback (no promise per line: a million lines stay cheap) and await the
 * optional `afterChunk` hook between chunks, which is where writers flush and backpressure happens.
 *
 * Linear in the file size whatever the line lengths: a line spread over many chunks is kept as a list of the chunks'
 * pieces and copied once, when its end is found (copying a growing carry buffer per chunk made one 50 MB line cost
 * quadratic time). Memory: one chunk plus the longest line.
 */

/** Default chunk size: 256 KiB forward (small enough to keep RSS flat at a million nodes, large enough to amortize reads), 64 KiB backward (a first page needs only the file's tail). */
export const FORWARD_CHUNK = 1 << 18;
export const BACKWARD_CHUNK = 1 << 16;

const NL = 10;
const CR = 13;

export interface ForwardOptions {
  signal?: AbortSignal;
  /** Byte offset to start at (a line start); offsets passed to `onLine` stay the file's. Default 0. */
  start?: number;
  /** Byte offset to stop at (a line start or the file's end): nothing at or past it is read. Default: the file's end. */
  end?: number;
  chunkSize?: number;
  afterChunk?: () => Promise<void>;
  /** Seam for tests and benchmarks: told the size of every copy made to join a line's pieces. */
  onCopy?: (bytes: number) => void;
}

/**
 * Calls `onLine(text, offset, lineNo, terminated, raw)` for every line of `file` from the start (`\r\n` endings are
 * trimmed from `text`; `raw` holds the line's bytes without its `\n`, a `\r` included, and stays valid only until
 * `afterChunk` has returned — copy it to keep it; `terminated` is false only for a last line without `\n`, such as a
 * torn write). A missing file has no lines.
 */
export async function forEachLine(
  file: string,
  onLine: (text: string, offset: number, lineNo: number, terminated: boolean, raw: Buffer) => void,
  opts: ForwardOptions = {},
): Promise<{ lines: number; bytes: number }> {
  const handle = await openIfExists(file);
  if (!handle) return { lines: 0, bytes: 0 };
  const chunkSize = opts.chunkSize ?? FORWARD_CHUNK;
  let lineNo = 0;
  let filePos = opts.start ?? 0;
  // Pieces of a line that started in an earlier chunk (each a view into its own chunk: no copy until the line ends).
  let pieces: Buffer[] = [];
  let piecesLen = 0;
  let pieceStart = 0;
  const emit = (raw: Buffer, offset: number, terminated: boolean) => {
    const end = terminated && raw.length > 0 && raw[raw.length - 1] === CR ? raw.length - 1 : raw.length;
    onLine(raw.toString('utf8', 0, end), offset, ++lineNo, terminated, raw);
  };
  const joinPieces = (last: Buffer): Buffer => {
    const total = piecesLen + last.length;
    opts.onCopy?.(total);
    const joined = Buffer.concat([...pieces, last], total);
    pieces = [];
    piecesLen = 0;
    return joined;
  };
  // The read buffer is reused while no piece of a line points into it (see keepsChunk): a fresh 256 KiB Buffer per
  // chunk is memory outside the V8 heap that is freed late, which made the server's RSS grow with the file read.
  let spare: Buffer | undefined;
  try {
    for (;;) {
      if (opts.signal?.aborted) throw new CancelledError();
      const chunk = spare ?? Buffer.allocUnsafe(chunkSize);
      spare = undefined;
      const want = opts.end === undefined ? chunkSize : Math.min(chunkSize, opts.end - filePos);
      if (want <= 0) break;
      const { bytesRead } = await handle.read(chunk, 0, want, filePos);
      if (bytesRead === 0) break;
      const data = chunk.subarray(0, bytesRead);
      const dataStart = filePos;
      filePos += bytesRead;
      let start = 0;
      let nl = data.indexOf(NL);
      if (nl !== -1 && piecesLen > 0) {
        emit(joinPieces(data.subarray(0, nl)), pieceStart, true);
        start = nl + 1;
        nl = data.indexOf(NL, start);
      }
      while (nl !== -1) {
        emit(data.subarray(start, nl), dataStart + start, true);
        start = nl + 1;
        nl = data.indexOf(NL, start);
      }
      let reusable = true;
      if (start < data.length) {
        if (piecesLen === 0) pieceStart = dataStart + start;
        const piece = data.subarray(start);
        reusable = keepsChunk(piece, piecesLen, chunkSize) === false;
        pieces.push(reusable ? copyPiece(piece, opts.onCopy) : piece);
        piecesLen += piece.length;
      }
      if (opts.afterChunk) await opts.afterChunk();
      if (reusable) spare = chunk;
    }
    if (piecesLen > 0) {
      emit(pieces.length === 1 ? pieces[0]! : joinPieces(Buffer.alloc(0)), pieceStart, false);
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
 * Calls `onLine(text, offset)` for each non-empty line that ends before byte `from` (default: the end of the file),
 * from the last towards the first, until it returns false. Returns the file's identity and the offset of the last
 * line visited (0 when the start was reached without stopping).
 * `check(source)` runs once before reading (cursor validation) and may throw.
 */
export async function forEachLineBackward(
  file: string,
  onLine: (text: string, offset: number) => boolean,
  opts: {
    from?: number;
    signal?: AbortSignal;
    chunkSize?: number;
    check?: (src: BackwardSource, readByte: (pos: number) => Promise<number>) => Promise<void>;
    /** Seam for tests and benchmarks: told the size of every copy made to join a line's pieces. */
    onCopy?: (bytes: number) => void;
    /**
     * Looks at a line's raw bytes (`\r` included) first: a line it refuses is skipped without being decoded (a scan
     * for a few ids then makes no string per line — less garbage, fewer objects surviving into the old generation).
     */
    prefilter?: (raw: Buffer) => boolean;
  } = {},
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
    const prefilter = opts.prefilter;
    let pos = Math.min(opts.from ?? stat.size, stat.size);
    // The end of a line that began in an earlier (lower) chunk: pieces in reverse file order, joined once.
    let tail: Buffer[] = [];
    let tailLen = 0;
    let first = true;
    let spare: Buffer | undefined; // reused while no tail piece points into it (see forEachLine)
    const lineOf = (head: Buffer): Buffer => {
      if (tailLen === 0) return head;
      const total = head.length + tailLen;
      opts.onCopy?.(total);
      const joined = Buffer.concat([head, ...tail.reverse()], total);
      tail = [];
      tailLen = 0;
      return joined;
    };
    while (pos > 0) {
      if (opts.signal?.aborted) throw new CancelledError();
      const n = Math.min(chunkSize, pos);
      const buf = spare ?? Buffer.allocUnsafe(chunkSize);
      spare = undefined;
      const chunk = buf.subarray(0, n);
      const { bytesRead } = await handle.read(chunk, 0, n, pos - n);
      if (bytesRead !== n) break; // the file shrank under us (cannot happen while it is replaced by rename)
      pos -= n;
      let end = n;
      // The range normally ends with the `\n` of its newest line (end of file or a line start): not a line itself.
      if (first && chunk[n - 1] === NL) end = n - 1;
      first = false;
      let nl = lastNewline(chunk, end);
      while (nl !== -1) {
        const raw = lineOf(chunk.subarray(nl + 1, end));
        const text = !prefilter || prefilter(raw) ? trimCr(raw.toString('utf8')) : '';
        if (text !== '' && !onLine(text, pos + nl + 1)) return { source, stoppedAt: pos + nl + 1 };
        end = nl;
        nl = lastNewline(chunk, end);
      }
      // chunk[0..end) is the end of a line that began in an earlier chunk (or at the file start).
      if (end > 0) {
        const piece = chunk.subarray(0, end);
        const keep = keepsChunk(piece, tailLen, chunkSize);
        tail.push(keep ? piece : copyPiece(piece, opts.onCopy));
        tailLen += end;
        if (!keep) spare = buf;
      } else spare = buf;
      if (pos === 0 && tailLen > 0) {
        const raw = lineOf(Buffer.alloc(0));
        const text = !prefilter || prefilter(raw) ? trimCr(raw.toString('utf8')) : '';
        if (text !== '' && !onLine(text, 0)) return { source, stoppedAt: 0 };
      }
    }
    return { source, stoppedAt: null };
  } finally {
    await handle.close();
  }
}

/**
 * Whether a line piece left at a chunk boundary keeps pointing into its chunk (which then cannot be reused). The piece
 * starting a line is usually short — copying it lets the chunk be reused, so a scan allocates one read buffer instead
 * of one per chunk (memory outside the V8 heap that is freed only by a later GC: it made RSS grow with the file read).
 * The pieces of a long line spanning chunks stay views, so such a line is still copied once, when its end is found.
 */
function keepsChunk(piece: Buffer, before: number, chunkSize: number): boolean {
  return before > 0 || piece.length > chunkSize >>> 2;
}

function copyPiece(piece: Buffer, onCopy?: (bytes: number) => void): Buffer {
  onCopy?.(piece.length);
  return Buffer.from(piece);
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
