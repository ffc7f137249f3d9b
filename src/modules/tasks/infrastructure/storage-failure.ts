import { isWorkgraphError, StorageError } from '../../../kernel/errors';

/** What an errno means for the person who has to fix it. */
const CAUSES: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  EFBIG: 'the file would pass the file-size limit',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a part of its path is a file, not a folder',
  EIO: 'an I/O error of the device',
  EMFILE: 'too many open files in this process',
  ENFILE: 'too many open files on this system',
};

/**
 * The StorageError for a failed file operation: names the file, what was being done and the cause in words (with the
 * errno), plus what happened to the data (`nothing was changed`). WorkgraphErrors pass through unchanged.
 */
export function storageFailure(e: unknown, file: string, action: string, outcome: string): Error {
  if (isWorkgraphError(e)) return e;
  const code = (e as NodeJS.ErrnoException)?.code;
  const cause = code ? `${CAUSES[code] ?? (e as Error).message} (${code})` : String((e as Error)?.message ?? e);
  return new StorageError(`cannot ${action} ${file}: ${cause}; ${outcome}`, { file, errno: code ?? null }, { cause: e });
}
