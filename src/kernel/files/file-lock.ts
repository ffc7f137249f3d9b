import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as lockfile from 'proper-lockfile';
import { LockError } from '../errors';
import { describeIoCause, errnoCode } from './storage-errors';
import { makeDir } from './make-dir';

/**
 * Lock options, set deliberately:
 * - `realpath: false` — the locked path need not exist and symlinked data dirs work.
 * - `stale: 10_000` ms — a lock whose holder stopped refreshing it (crashed process) for 10 s can be taken over.
 *   proper-lockfile refreshes the lock's mtime every `stale / 2` ms while held. A lock dated further in the future
 *   than the stale period (left by a process before the clock was stepped back) is stale too.
 * - waiting — only for a lock another process holds: up to `waitMs` (30 s) in all, backoff from 10 ms to 1 s with
 *   jitter, so many processes queue up instead of failing. Permanent failures (read-only file system, permission
 *   denied, `.lock` being a file or a folder with files in it) are not retried: they fail at once with a LockError
 *   naming the lock path and the cause.
 */
export interface FileLockOptions {
  /** Default 10,000 ms. */
  staleMs?: number;
  /** How long to wait for a lock held by another process. Default 30,000 ms. */
  waitMs?: number;
}

export interface HeldLock {
  /** Throws LockError when the lock was compromised (taken over, its file removed) since it was acquired. */
  assertHeld(): void;
}

/**
 * Node ignores SIGXFSZ, so a write past a file size limit (`ulimit -f`) fails with EFBIG, which the write helpers turn
 * into a storage_error. But signal-exit (loaded by proper-lockfile) listens to SIGXFSZ and re-raises it when it is the
 * only listener, which kills the process. One listener of our own keeps the signal ignored.
 */
function keepFileSizeSignalIgnored(): void {
  const ignore = (): void => undefined;
  if (process.platform !== 'win32' && !process.listeners('SIGXFSZ').some((l) => l.name === 'ignoreFileSizeSignal')) {
    Object.defineProperty(ignore, 'name', { value: 'ignoreFileSizeSignal' });
    process.on('SIGXFSZ', ignore);
  }
}
keepFileSizeSignalIgnored();

const DEFAULT_STALE_MS = 10_000;
const DEFAULT_WAIT_MS = 30_000;

/** The lock folder of `dir`. */
export function lockPathOf(dir: string): string {
  return path.join(dir, '.lock');
}

/**
 * Runs `fn` while holding the cross-process lock of `dir` (lock directory `<dir>/.lock`). When the lock is
 * compromised while held, the operation fails with LockError at its next `assertHeld()` and at the end, instead of
 * crashing the process (proper-lockfile's default `onCompromised` throws asynchronously).
 */
export async function withFileLock<T>(dir: string, fn: (lock: HeldLock) => Promise<T>, opts: FileLockOptions = {}): Promise<T> {
  const lockfilePath = lockPathOf(dir);
  // A folder that cannot be created is a storage_error naming it (not a lock that might come free).
  await makeDir(dir);
  let compromised: Error | undefined;
  const release = await acquire(dir, lockfilePath, opts, (err) => {
    compromised = err;
  });
  const held: HeldLock = {
    assertHeld() {
      if (compromised) {
        throw new LockError(`lock ${lockfilePath} was lost while held (${compromised.message}); the operation was stopped`, {
          lockPath: lockfilePath,
          dir,
        });
      }
    },
  };
  try {
    const result = await fn(held);
    held.assertHeld();
    return result;
  } finally {
    await release().catch(() => undefined);
  }
}

async function acquire(
  dir: string,
  lockfilePath: string,
  opts: FileLockOptions,
  onCompromised: (err: Error) => void,
): Promise<() => Promise<void>> {
  const staleMs = opts.staleMs ?? DEFAULT_STALE_MS;
  const deadline = Date.now() + (opts.waitMs ?? DEFAULT_WAIT_MS);
  let delay = 10;
  for (let attempt = 1; ; attempt++) {
    try {
      return await lockfile.lock(dir, { realpath: false, lockfilePath, stale: staleMs, retries: 0, onCompromised });
    } catch (e) {
      const code = errnoCode(e);
      // Whatever proper-lockfile said, a `.lock` that is not an empty folder can never be taken: say so.
      const shape = await inspectLock(lockfilePath);
      if (shape.kind === 'file') throw permanent(lockfilePath, 'it is a file, not a lock folder; remove it', e, attempt);
      if (shape.kind === 'non-empty') {
        throw permanent(lockfilePath, `the lock folder holds files (${shape.names}); a lock is an empty folder: remove it`, e, attempt);
      }
      if (code !== 'ELOCKED') throw permanent(lockfilePath, describeIoCause(e), e, attempt);
      if (shape.kind === 'dir' && shape.mtimeMs > Date.now() + staleMs) {
        // Dated in the future beyond the stale period (clock stepped back): proper-lockfile would never call it stale.
        await removeFutureLock(lockfilePath, staleMs);
        continue;
      }
      if (Date.now() + delay > deadline) {
        throw new LockError(
          `lock ${lockfilePath} is held by another process and was not released within ${Math.round((opts.waitMs ?? DEFAULT_WAIT_MS) / 1000)} s; try again later`,
          { lockPath: lockfilePath, dir, retryable: true, attempts: attempt },
          { cause: e },
        );
      }
      await sleep(delay * (0.5 + Math.random()));
      delay = Math.min(1_000, delay * 1.5);
    }
  }
}

type LockShape = { kind: 'missing' } | { kind: 'file' } | { kind: 'non-empty'; names: string } | { kind: 'dir'; mtimeMs: number };

async function inspectLock(lockfilePath: string): Promise<LockShape> {
  try {
    const st = await fs.lstat(lockfilePath);
    if (!st.isDirectory()) return { kind: 'file' };
    const names = await fs.readdir(lockfilePath).catch(() => [] as string[]);
    if (names.length) return { kind: 'non-empty', names: names.slice(0, 3).join(', ') + (names.length > 3 ? ', …' : '') };
    return { kind: 'dir', mtimeMs: st.mtimeMs };
  } catch {
    return { kind: 'missing' };
  }
}

/** Removes a lock dated in the future, re-checking its date right before (a fresh lock taken meanwhile is kept). */
async function removeFutureLock(lockfilePath: string, staleMs: number): Promise<void> {
  try {
    const st = await fs.stat(lockfilePath);
    if (st.mtimeMs > Date.now() + staleMs) await fs.rmdir(lockfilePath);
  } catch {
    // Gone already, or taken and refreshed by someone else: the next attempt finds out.
  }
}

function permanent(lockPath: string, cause: string, e: unknown, attempts = 1): LockError {
  return new LockError(
    `cannot take lock ${lockPath}: ${cause}; this will not go away by retrying`,
    { lockPath, cause, retryable: false, attempts },
    { cause: e },
  );
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
