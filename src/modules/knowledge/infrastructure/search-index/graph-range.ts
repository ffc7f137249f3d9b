import * as fs from 'node:fs';
import { toStorageError } from '../../../../kernel/files/storage-errors';

/**
 * Bytes [from, to) of the graph at `file`, read synchronously (a tail of a few MiB at most; under the lock nobody
 * else writes the file). Fewer bytes when the file is shorter.
 */
export function readGraphRange(file: string, from: number, to: number): Buffer {
  let fd: number | undefined;
  try {
    fd = fs.openSync(file, 'r');
    return readRange(fd, from, to);
  } catch (e) {
    throw toStorageError(e, 'read', file);
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Bytes [from, to) of the open file `fd`; fewer when it is shorter. */
export function readRange(fd: number, from: number, to: number): Buffer {
  const buf = Buffer.allocUnsafe(Math.max(0, to - from));
  let done = 0;
  while (done < buf.length) {
    const n = fs.readSync(fd, buf, done, buf.length - done, from + done);
    if (n === 0) break;
    done += n;
  }
  return buf.subarray(0, done);
}
