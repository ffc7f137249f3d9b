import { StorageError, StorageUnavailableError, WorkgraphError } from '../errors';
import { scrubSecret } from './database-url';

/**
 * Turns a driver error into a kernel error. Connection failures (refused, reset, timed out, the server shutting down
 * or starting up, too many connections) are `storage_unavailable` (retryable); anything else from the database is a
 * `storage_error`. Kernel errors pass through. Messages never carry the password.
 */
export function toStoreError(e: unknown, url: string, what: string): WorkgraphError {
  if (e instanceof WorkgraphError) return e;
  const err = e as { code?: string; message?: string };
  const message = scrubSecret(err?.message ?? String(e), url);
  if (isUnavailable(err)) {
    return new StorageUnavailableError(`${what}: the database is unavailable (${message}); the call can be retried`, { cause: err.code });
  }
  return new StorageError(`${what}: ${message}`, { sqlState: err.code });
}

/** SQLSTATE classes and socket errors that mean "the server cannot be reached right now". */
function isUnavailable(err: { code?: string; message?: string }): boolean {
  const code = err?.code ?? '';
  if (['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN'].includes(code)) return true;
  // 08xxx connection exceptions; 57P01-57P03 admin shutdown / crash shutdown / cannot connect now; 53300 too many connections
  if (/^08/.test(code) || ['57P01', '57P02', '57P03', '53300'].includes(code)) return true;
  const m = err?.message ?? '';
  return /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|the database system is (starting up|shutting down)/i.test(m);
}
