import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as lockfile from 'proper-lockfile';
import { LockError } from '../errors';

/**
 * Lock options, set deliberately:
 * - `realpath: false` — the locked path need not exist and symlinked data dirs work.
 * - `stale: 10_000` ms — a lock whose holder stopped refreshing it (crashed process) for 10 s can be taken over.
 *   proper-lockfile refreshes the lock's mtime every `stale / 2` ms while held.
 * - retries — about 30 s in all, exponential backoff from 10 ms to 1 s with jitter, so many processes queue up
 *   instead of failing.
 */
export interface FileLockOptions {
  /** Default 10,000 ms. */
  staleMs?: number;
  /** Default 60 retries (≈30 s with the backoff below). */
  retries?: number;
}

export interface HeldLock {
  /** Throws LockError when the lock was compromised (taken over, its file removed) since it was acquired. */
  assertHeld(): void;
}

/**
 * Runs `fn` while holding the cross-process lock of `dir` (lock directory `<dir>/.lock`). When the lock is
 * compromised while held, the operation fails with LockError at its next `assertHeld()` and at the end, instead of
 * crashing the process (proper-lockfile's default `onCompromised` throws asynchronously).
 */
export async function withFileLock<T>(dir: string, fn: (lock: HeldLock) => Promise<T>, opts: FileLockOptions = {}): Promise<T> {
  await fs.mkdir(dir, { recursive: true });
  let compromised: Error | undefined;
  let release: () => Promise<void>;
  const lockfilePath = path.join(dir, '.lock');
  try {
    release = await lockfile.lock(dir, {
      realpath: false,
      lockfilePath,
      stale: opts.staleMs ?? 10_000,
      retries: { retries: opts.retries ?? 60, factor: 1.5, minTimeout: 10, maxTimeout: 1_000, randomize: true },
      onCompromised: (err) => {
        compromised = err;
      },
    });
  } catch (e) {
    throw new LockError(`could not lock ${dir}: ${(e as Error).message}`, { dir }, { cause: e });
  }
  const held: HeldLock = {
    assertHeld() {
      if (compromised) throw new LockError(`lock on ${dir} was compromised: ${compromised.message}`, { dir });
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
