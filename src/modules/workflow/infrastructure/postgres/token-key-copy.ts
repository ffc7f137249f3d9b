import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import { writeKeyFile } from '../sessions/hmac-session-tokens';

/**
 * `workgraph db import/export` copies the session-token signing key with the sessions, so tokens handed out before
 * the move still verify after it. A side that already has a different key keeps it unless `replace` (its own
 * servers' tokens would stop verifying): the answer says which happened.
 */
export async function copySessionTokenKey(
  direction: 'import' | 'export',
  dataDir: string,
  db: SqlRunner,
  replace = false,
): Promise<'copied' | 'unchanged' | 'kept' | 'none'> {
  const file = path.join(dataDir, 'sessions', 'token.key');
  const fileKey = await fs.readFile(file).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return undefined;
    throw e;
  });
  const [row] = await db.query<{ value: string }>("SELECT value FROM wg_settings WHERE name = 'session_token_key'");
  const dbKey = row ? Buffer.from(row.value, 'base64') : undefined;
  const [from, to] = direction === 'import' ? [fileKey, dbKey] : [dbKey, fileKey];
  if (!from) return 'none';
  if (to?.equals(from)) return 'unchanged';
  if (to && !replace) return 'kept';
  if (direction === 'import') {
    await db.query(
      "INSERT INTO wg_settings (name, value) VALUES ('session_token_key', $1) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value",
      [from.toString('base64')],
    );
  } else {
    await writeKeyFile(file, from, true);
  }
  return 'copied';
}
