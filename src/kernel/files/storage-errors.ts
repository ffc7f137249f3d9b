import { StorageError, isWorkgraphError } from '../errors';

/** Plain words for the errno codes storage failures come with, so a user knows what to fix. */
const CAUSES: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large (file size limit reached)',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  EISDIR: 'is a folder where a file was expected',
  ENOTDIR: 'a part of the path is a file where a folder was expected',
  EIO: 'input/output error of the device',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
  ENOTEMPTY: 'folder is not empty',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'name too long',
  ENOENT: 'no such file or folder, and it cannot be created there',
};

/** The errno code of a thrown value, when it has one. */
export function errnoCode(e: unknown): string | undefined {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A one-line cause for an I/O error: `no space left on the device (ENOSPC)`, or the error's own message. */
export function describeIoCause(e: unknown): string {
  const code = errnoCode(e);
  if (code && CAUSES[code]) return `${CAUSES[code]} (${code})`;
  return (e as Error)?.message ?? String(e);
}

/**
 * Wraps an I/O failure as a StorageError naming the file and what went wrong (`could not append to <file>: no space
 * left on the device (ENOSPC)`). A WorkgraphError (lock lost, cancelled, already a storage error) passes through.
 */
export function toStorageError(e: unknown, action: string, file: string): Error {
  if (isWorkgraphError(e)) return e;
  return new StorageError(`could not ${action} ${file}: ${describeIoCause(e)}`, { file, action, errno: errnoCode(e) }, { cause: e });
}

/** The system calls of node:fs: an error from one of them is a storage failure. */
const FS_SYSCALLS = new Set(['open', 'close', 'read', 'write', 'mkdir', 'rmdir', 'rm', 'rename', 'unlink', 'stat', 'lstat', 'fstat', 'readdir', 'scandir', 'fsync', 'fdatasync', 'ftruncate', 'link', 'symlink', 'readlink', 'realpath', 'chmod', 'copyfile', 'access', 'utime', 'futime', 'opendir', 'mkdtemp']);

/**
 * A node:fs system error (`code`, `syscall`, `path`) that reached the top of a call without a store wrapping it, as
 * the storage_error it is (`could not mkdir /proc/nope: no such file or folder…`); undefined for anything else.
 */
export function fileSystemErrorAsStorageError(e: unknown): StorageError | undefined {
  if (isWorkgraphError(e) || !(e instanceof Error)) return undefined;
  const { code, syscall, path: file } = e as NodeJS.ErrnoException;
  if (typeof code !== 'string' || typeof syscall !== 'string' || typeof file !== 'string' || !FS_SYSCALLS.has(syscall)) return undefined;
  return new StorageError(`could not ${syscall} ${file}: ${describeIoCause(e)}`, { file, action: syscall, errno: code }, { cause: e });
}
