import * as fs from 'node:fs/promises';

/**
 * Writes every byte of `data` through `handle`, looping over short writes (a nearly full disk or a file-size limit
 * can accept part of a buffer). A write that makes no progress fails with ENOSPC instead of spinning.
 * @param position where to write; omit for the handle's current position (append mode: the end).
 */
export async function writeFully(handle: fs.FileHandle, data: string | Uint8Array, position?: number): Promise<number> {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let done = 0;
  while (done < buf.length) {
    const at = position === undefined ? null : position + done;
    const { bytesWritten } = await handle.write(buf, done, buf.length - done, at);
    if (bytesWritten <= 0) {
      throw Object.assign(new Error(`ENOSPC: no space left on device, wrote ${done} of ${buf.length} bytes`), { code: 'ENOSPC' });
    }
    done += bytesWritten;
  }
  return done;
}

/**
 * Appends all of `data` to `file` and fsyncs it — or fails and cuts the file back to the length it had, so a failed
 * append never leaves a fragment for readers to trip over. Returns the file's length before and after the append.
 * Callers serialise appends to one file (they hold its project lock): the cut-back assumes nobody else appended.
 */
export async function appendFully(file: string, data: string | Uint8Array): Promise<{ before: number; after: number }> {
  const handle = await fs.open(file, 'a', 0o644);
  let before = 0;
  try {
    before = (await handle.stat()).size;
    const written = await writeFully(handle, data);
    await handle.sync();
    return { before, after: before + written };
  } catch (e) {
    await handle.truncate(before).catch(() => undefined);
    await handle.sync().catch(() => undefined);
    throw e;
  } finally {
    await handle.close().catch(() => undefined);
  }
}
