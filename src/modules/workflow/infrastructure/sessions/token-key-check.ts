import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { StorageError } from '../../../../kernel/errors';
import { KEY_BYTES, writeKeyFile } from './hmac-session-tokens';

const SESSION_ID = /^[0-9a-f]{16}$/;

/**
 * Checked before a server starts on a data dir's sessions: `sessions/token.key` must hold a key of at least
 * {@link KEY_BYTES} bytes — an empty or short one would sign tokens anyone could forge. A missing key is made on first
 * use. A short key with no session yet is replaced at once (atomically: nothing signed with it can be lost); with
 * sessions it is refused with one line naming the file (their tokens were signed with it: the operator decides).
 * Returns what was done.
 */
export async function checkSessionTokenKey(sessionsDir: string): Promise<'ok' | 'missing' | 'replaced'> {
  const file = path.join(sessionsDir, 'token.key');
  let key: Buffer;
  try {
    key = await fs.readFile(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw new StorageError(`cannot read the session token key ${file}: ${(e as Error).message}`, { file });
  }
  if (key.length >= KEY_BYTES) return 'ok';
  if (!(await hasSessions(sessionsDir))) {
    await writeKeyFile(file, randomBytes(KEY_BYTES), true);
    return 'replaced';
  }
  throw new StorageError(
    `the session token key ${file} holds ${key.length} bytes, not a key of ${KEY_BYTES} (tokens signed with it could be forged); ` +
      `restore it from a backup, or delete it to make a new one (tokens already handed out then stop working)`,
    { file, bytes: key.length },
  );
}

async function hasSessions(sessionsDir: string): Promise<boolean> {
  try {
    return (await fs.readdir(sessionsDir)).some((n) => SESSION_ID.test(n));
  } catch {
    return false;
  }
}
