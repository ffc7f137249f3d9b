import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { StorageError } from '../errors';
import { toStorageError } from './storage-errors';

/** A temp file name in the same folder as `target` (so the final rename stays on one file system). */
export function tempPathFor(target: string): string {
  return path.join(path.dirname(target), `.${path.basename(target)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** fsync a folder so a rename inside it survives a crash. Ignored where the platform refuses (EISDIR/EPERM/EINVAL). */
export async function fsyncDir(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') throw e;
  } finally {
    await handle?.close();
  }
}

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
 * Writes every byte of `data` at `position` (null: the file's current position / end in append mode): a `write`
 * may write fewer bytes than asked (a nearly full disk, a file size limit), so it loops until all are out. A write
 * that makes no progress fails with ENOSPC instead of looping forever. Returns the number of bytes written.
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

/**
 * Writes `data` to `target` atomically: temp file in the same folder, write all of it, fsync, check the temp file's
 * size is what was written, rename over the target, fsync the folder. A crash or failure at any point leaves the old
 * file or the new one, never a torn one; a failure is a StorageError naming the file.
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array): Promise<void> {
  const tmp = tempPathFor(target);
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(tmp, 'w', 0o644);
  } catch (e) {
    throw toStorageError(e, 'write', target);
  }
  try {
    const written = await writeAll(handle, data, 0);
    await handle.sync();
    await assertSize(handle, written, target);
  } catch (e) {
    await handle.close().catch(() => undefined);
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw toStorageError(e, 'write', target);
  }
  await handle.close();
  await commitTempFile(tmp, target);
}

/** Fails when the file behind `handle` does not hold exactly `expected` bytes (never rename a torn temp file). */
export async function assertSize(handle: fs.FileHandle, expected: number, target: string): Promise<void> {
  const { size } = await handle.stat();
  if (size !== expected) {
    throw new StorageError(`could not write ${target}: the new file holds ${size} of ${expected} bytes; the old file was kept`, {
      file: target,
      expected,
      size,
    });
  }
}

/** Renames a fully written and fsynced temp file over `target` and fsyncs the folder. Removes the temp file on failure. */
export async function commitTempFile(tmp: string, target: string): Promise<void> {
  try {
    await fs.rename(tmp, target);
  } catch (e) {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw toStorageError(e, 'replace', target);
  }
  await fsyncDir(path.dirname(target)).catch(() => undefined);
}

/**
 * Appends `data` to `file` and fsyncs, all or nothing: every byte is written (see {@link writeAll}); on any failure
 * the file is cut back (ftruncate) to its length before the append, so a reader never sees a partial line, and the
 * error is a StorageError naming the file. Callers hold the project lock, so appends of several processes never
 * interleave and the length read before the append is still the file's end.
 *
 * `ensureNewline`: when the file does not end with `\n` (a torn line left by a crash), a `\n` is written first so the
 * torn line stays a line of its own instead of swallowing the first line appended.
 */
export async function appendAll(file: string, data: string | Uint8Array, opts: { ensureNewline?: boolean } = {}): Promise<void> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'a+', 0o644);
  } catch (e) {
    throw toStorageError(e, 'append to', file);
  }
  let before = -1;
  try {
    ({ size: before } = await handle.stat());
    let prefix = '';
    if (opts.ensureNewline && before > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, before - 1);
      if (last[0] !== 10) prefix = '\n';
    }
    const body = typeof data === 'string' ? Buffer.from(prefix + data, 'utf8') : prefix ? Buffer.concat([Buffer.from(prefix), data]) : data;
    // Positioned at the end we measured: the file is opened in append mode, so the kernel appends anyway.
    const written = await writeAll(handle, body, null);
    await handle.sync();
    await assertSize(handle, before + written, file);
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
  await handle.close();
}

/** Former name of {@link appendAll}, kept for callers that append without the torn-line check. */
export async function appendDurable(file: string, data: string): Promise<void> {
  await appendAll(file, data);
}
