import { randomBytes, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';
import type { IncomingMessage } from 'node:http';

/** A fresh random access token (as notebook servers print with their URL). */
export function randomToken(): string {
  return randomBytes(24).toString('hex');
}

/**
 * The token kept in `file` (first line, trimmed).
 * @throws Error naming the file when it cannot be read or is empty.
 */
export function tokenFromFile(file: string): string {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`--auth-token-file: cannot read ${file}: ${(e as Error).message}`);
  }
  const token = text.split(/\r?\n/)[0].trim();
  if (token.length < 8) throw new Error(`--auth-token-file: ${file} must hold a token of at least 8 characters on its first line`);
  return token;
}

/** The token a request carries: `Authorization: Bearer …`, else `?token=` (EventSource cannot set headers). */
export function requestToken(req: IncomingMessage, url: URL): string | undefined {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Bearer ')) return auth.slice(7).trim();
  return url.searchParams.get('token') ?? undefined;
}

/** The `authorize` of a dashboard opened by one token (what `workgraph dashboard` prints). */
export function singleToken(expected: string): (given: string | undefined) => Promise<boolean> {
  return async (given) => tokenMatches(given, expected);
}

/** Constant-time comparison, so the token cannot be guessed byte by byte from response times. */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
