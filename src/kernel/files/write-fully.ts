import * as fs from 'node:fs/promises';
import { fstatSync } from 'node:fs';
import { StorageError } from '../errors';
import { toStorageError } from './storage-errors';

/**
 * The one checked write path for data files (docs/architecture.md "One write path"): every byte written or a
 * StorageError naming the file. Stores never call `write`/`appendFile`/`writeFile`/`createWriteStream` themselves
 * (tests/unit/architecture/one-write-path.test.ts fails when one does); they append through {@link appendFully} /
 * {@link appendLines}, rewrite through `writeFileAtomic` (atomic-write.ts), or stream through {@link writeAll}.
 */

/** The low-level write a {@link writeAll} loop calls; injectable so tests can produce short writes. */
export type WriteFn = (handle: fs.FileHandle, buf: Buffer, offset: number, length: number, position: number | null) => Promise<number>;

const defaultWrite: WriteFn = async (handle, buf, offset, length, position) =>
  (await handle.write(buf, offset, length, position)).bytesWritten;

let writeImpl: WriteFn = defaultWrite;

/** Test seam: replaces the low-level write (returns the previous one). Pass undefined to restore the default. */
export function setWriteImplForTests(fn: WriteFn | undefined): WriteFn {
  const previous = writeImpl;
  writeImpl = fn ?? defaultWrite;
  return previous;
}

/**
 * Writes every byte of `data` at `position` (null/undefined: the file's current position — the end in append mode):
 * a `write` may write fewer bytes than asked (a nearly full disk, a file size limit), so it loops until all are out.
 * A write that makes no progress fails with ENOSPC instead of looping forever. Returns the number of bytes written.
 * Errors are the raw errno errors (the caller knows which file it is and wraps them).
 */
export async function writeAll(handle: fs.FileHandle, data: string | Uint8Array, position: number | null = null): Promise<number> {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let done = 0;
  while (done < buf.length) {
    const n = await writeImpl(handle, buf, done, buf.length - done, position === null ? null : position + done);
    if (!(n > 0)) {
      const err = new Error(`short write: ${done} of ${buf.length} bytes written, then no progress`) as NodeJS.ErrnoException;
      err.code = 'ENOSPC';
      throw err;
    }
    done += n;
  }
  return done;
}

/** {@link writeAll} with an optional position (undefined: the handle's current position). */
export async function writeFully(handle: fs.FileHandle, data: string | Uint8Array, position?: number): Promise<number> {
  return writeAll(handle, data, position ?? null);
}

/** Fails when the file behind `handle` does not hold exactly `expected` bytes (never trust a torn write). */
export async function assertSize(handle: fs.FileHandle, expected: number, target: string): Promise<import('node:fs').Stats> {
  const st = await handle.stat();
  const { size } = st;
  if (size !== expected) {
    throw new StorageError(`could not write ${target}: the file holds ${size} of ${expected} bytes; the old content was kept`, {
      file: target,
      expected,
      size,
    });
  }
  return st;
}

export interface AppendResult {
  before: number;
  after: number;
  ino: number;
  mtimeMs: number;
}

export interface AppendOptions {
  /** fsync after the append (default true): an acknowledged append survives a crash of the machine. */
  sync?: boolean;
  /** When the file does not end with `\n` (a torn last line), write one first (see {@link appendLines}). */
  ensureNewline?: boolean;
  /**
   * Called once every byte is written, while the fsync runs (on the thread pool), with the file's length before and
   * after the append, its inode and mtime: CPU work that follows the append (indexing what was appended) is done in the fsync's time
   * instead of after it. It must not throw; it must not take the append as done (the fsync can still fail, and then
   * the file is cut back and the append fails). It may return a promise (more work run in the fsync's time, which
   * `synced` settles with): the append answers once both are done; it must not reject.
   */
  whileSyncing?: (written: { before: number; after: number; ino: number; mtimeMs: number }, synced: Promise<unknown>) => unknown;
}

/**
 * Appends all of `data` to `file` (and fsyncs unless `sync: false`) — or fails with a StorageError naming the file and
 * cuts the file back to the length it had, so a failed append never leaves a fragment for readers to trip over.
 * Returns the file's length before and after the append, and its inode and mtime after it. Callers serialise appends to one file (they hold its lock):
 * the cut-back and the torn-line check assume nobody else appends meanwhile.
 */
export async function appendFully(file: string, data: string | Uint8Array, opts: AppendOptions = {}): Promise<AppendResult> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'a+', 0o644);
  } catch (e) {
    throw toStorageError(e, 'append to', file);
  }
  let before = -1;
  try {
    ({ size: before } = await handle.stat());
    let prefix = false;
    if (opts.ensureNewline && before > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, before - 1);
      prefix = last[0] !== 0x0a;
    }
    const raw = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const body = prefix ? Buffer.concat([NEWLINE, raw]) : raw;
    // The file is opened in append mode: the kernel appends at its end whatever the position.
    const written = await writeAll(handle, body, null);
    const syncing = (opts.sync ?? true) ? handle.sync() : undefined;
    // A failed fsync is awaited below (the catch cuts the append back); the callback runs meanwhile.
    syncing?.catch(() => undefined);
    // The file's identity as the write left it (an fsync changes neither its inode nor its mtime).
    const meanwhile = opts.whileSyncing ? opts.whileSyncing({ before, after: before + written, ...identityOf(handle) }, syncing ?? Promise.resolve()) : undefined;
    await syncing;
    await meanwhile;
    const st = await assertSize(handle, before + written, file);
    await handle.close();
    return { before, after: before + written, ino: st.ino, mtimeMs: st.mtimeMs };
  } catch (e) {
    if (before >= 0) {
      // Cut the partial append back; if even that fails the torn tail stays a malformed line of its own (readers
      // skip it, the next append starts on a fresh line).
      await handle.truncate(before).catch(() => undefined);
      await handle.sync().catch(() => undefined);
    }
    await handle.close().catch(() => undefined);
    throw toStorageError(e, 'append to', file);
  }
}

const NEWLINE = Buffer.from('\n');

/** The inode and mtime of the open file, synchronously (a few µs: no round trip through the thread pool). */
function identityOf(handle: fs.FileHandle): { ino: number; mtimeMs: number } {
  const st = fstatSync(handle.fd);
  return { ino: st.ino, mtimeMs: st.mtimeMs };
}

/**
 * Appends whole NDJSON lines (`text` must end with `\n`), always starting on a fresh line: when the file's last byte
 * is not `\n` (a line torn by a crash or an outside writer) a `\n` goes first, so the torn fragment stays a damaged
 * line of its own and never glues itself to the first line appended. All or nothing, as {@link appendFully}.
 */
export async function appendLines(file: string, text: string, opts: { sync?: boolean } = {}): Promise<AppendResult> {
  if (text !== '' && !text.endsWith('\n')) throw new Error(`appendLines(${file}): the text must end with a newline`);
  return appendFully(file, text, { sync: opts.sync, ensureNewline: true });
}

/** Cuts `file` back to `length` bytes (the records of a write that never took effect), fsynced; a StorageError names the file. */
export async function truncateFile(file: string, length: number): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(file, 'r+');
    await handle.truncate(length);
    await handle.sync();
  } catch (e) {
    throw toStorageError(e, 'cut back', file);
  } finally {
    await handle?.close().catch(() => undefined);
  }
}
