import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { InvalidTokenError, StorageError } from '../../../../kernel/errors';
import { writeFileAtomic, writeFileIfAbsent } from '../../../../kernel/files/atomic-write';
import type { SessionTokens, TokenClaims } from '../../application/ports/session-tokens';
import { makeDir } from '../../../../kernel/files/make-dir';

const KINDS: TokenClaims['kind'][] = ['continue', 'retry', 'checkpoint', 'resume'];
/** 1 version/kind byte + 8 session id bytes + 4 node bytes, then a 10-byte HMAC-SHA256 tag: 23 bytes, 31 characters. */
const PAYLOAD = 13;
const TAG = 10;
const VERSION = 1;
/** The size of the key made on first use, and the least a key file must hold. */
export const KEY_BYTES = 32;

/**
 * Short opaque tokens: base64url of (version+kind, session id, node) followed by a truncated HMAC-SHA256 tag under a
 * 32-byte key kept in `<data-dir>/sessions/token.key` (mode 0600, created on first use). 80 bits of tag make forgery
 * impractical while keeping tokens at 31 characters; a token from another data dir fails the tag check.
 */
export class HmacSessionTokens implements SessionTokens {
  private key?: Promise<Buffer>;

  /**
   * @param keySource the key file (created 0600 on first use), or a function giving the key (the PostgreSQL store
   *   keeps one key per database so every server of it accepts the same tokens).
   */
  constructor(private readonly keySource: string | (() => Promise<Buffer>)) {}

  async sign(claims: TokenClaims): Promise<string> {
    const payload = Buffer.alloc(PAYLOAD);
    payload[0] = (VERSION << 4) | KINDS.indexOf(claims.kind);
    Buffer.from(claims.sessionId, 'hex').copy(payload, 1, 0, 8);
    payload.writeUInt32BE(claims.node, 9);
    const tag = await this.tag(payload);
    return Buffer.concat([payload, tag]).toString('base64url');
  }

  async verify(token: string, field: string): Promise<TokenClaims> {
    if (typeof token !== 'string' || !/^[A-Za-z0-9_-]+$/.test(token)) throw new InvalidTokenError(field, 'expected a base64url string');
    const bytes = Buffer.from(token, 'base64url');
    if (bytes.length !== PAYLOAD + TAG || bytes.toString('base64url') !== token) throw new InvalidTokenError(field, 'wrong length: truncated or not a token');
    const payload = bytes.subarray(0, PAYLOAD);
    const expected = await this.tag(payload);
    if (!timingSafeEqual(expected, bytes.subarray(PAYLOAD))) throw new InvalidTokenError(field, 'signature does not match: altered, forged or from another data dir');
    const version = payload[0] >> 4;
    const kind = KINDS[payload[0] & 0x0f];
    if (version !== VERSION || !kind) throw new InvalidTokenError(field, 'unknown token version');
    return { kind, sessionId: payload.subarray(1, 9).toString('hex'), node: payload.readUInt32BE(9) };
  }

  newSessionId(): string {
    return randomBytes(8).toString('hex');
  }

  private async tag(payload: Buffer): Promise<Buffer> {
    const load = typeof this.keySource === 'string' ? () => loadOrCreateKey(this.keySource as string) : this.keySource;
    const key = await (this.key ??= load().catch((e) => {
      this.key = undefined;
      throw e;
    }));
    return createHmac('sha256', key).update(payload).digest().subarray(0, TAG);
  }
}

/**
 * Reads the key, or creates it: written to a temp file with mode 0600 and linked into place, so two processes
 * starting at once agree on one key (the loser of the link reads the winner's). A key file shorter than
 * {@link KEY_BYTES} is never used as a key (tokens signed with it could be forged): a StorageError names it (the server
 * checks it at start, see token-key-check.ts).
 */
export async function loadOrCreateKey(file: string): Promise<Buffer> {
  const read = async () => {
    const key = await fs.readFile(file);
    if (key.length < KEY_BYTES) {
      throw new StorageError(`the session token key ${file} holds ${key.length} bytes, not a key of ${KEY_BYTES}; restore it from a backup, or delete it to make a new one`, { file });
    }
    return key;
  };
  try {
    return await read();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  await writeKeyFile(file, randomBytes(KEY_BYTES), false);
  return read();
}

/**
 * Puts a key in place through a temp file of mode 0600: linked when `overwrite` is false (an existing key wins),
 * renamed over the old one when true (`workgraph db export --replace`).
 */
export async function writeKeyFile(file: string, key: Buffer, overwrite: boolean): Promise<void> {
  await makeDir(path.dirname(file));
  if (overwrite) await writeFileAtomic(file, key, { mode: 0o600 });
  else await writeFileIfAbsent(file, key, { mode: 0o600 });
}
