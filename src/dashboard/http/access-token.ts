import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A fresh random access token (as notebook servers print with their URL). */
export function randomToken(): string {
  return randomBytes(24).toString('hex');
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
