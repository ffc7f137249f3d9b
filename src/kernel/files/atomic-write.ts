import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

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

/**
 * Writes `data` to `target` atomically: temp file in the same folder, write, fsync, rename over the target, fsync the
 * folder. A crash at any point leaves the old file or the new one, never a torn one.
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array): Promise<void> {
  const tmp = tempPathFor(target);
  const handle = await fs.open(tmp, 'w', 0o644);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (e) {
    await handle.close().catch(() => undefined);
    await fs.rm(tmp, { force: true });
    throw e;
  }
  await handle.close();
  await commitTempFile(tmp, target);
}

/** Renames a fully written and fsynced temp file over `target` and fsyncs the folder. Removes the temp file on failure. */
export async function commitTempFile(tmp: string, target: string): Promise<void> {
  try {
    await fs.rename(tmp, target);
  } catch (e) {
    await fs.rm(tmp, { force: true });
    throw e;
  }
  await fsyncDir(path.dirname(target));
}

/**
 * Appends `data` to `file` with one write call on a file opened in append mode, then fsyncs. Callers hold the
 * project lock, so lines from several processes never interleave.
 */
export async function appendDurable(file: string, data: string): Promise<void> {
  const handle = await fs.open(file, 'a', 0o644);
  try {
    await handle.write(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
}
