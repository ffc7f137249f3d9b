import { createHash, timingSafeEqual } from 'node:crypto';
import * as fs from 'node:fs';

/** Who a verified bearer token belongs to (the shape of the SDK's AuthInfo, so handlers see it as `authInfo`). */
export interface VerifiedToken {
  token: string;
  /** A stable, non-secret name for the token's holder (sessions are bound to it). */
  clientId: string;
  scopes: string[];
  /** Seconds since the epoch, when the token expires. */
  expiresAt?: number;
}

/**
 * The port an authentication scheme plugs into: static bearer tokens today, an OAuth access-token verifier (token
 * introspection or JWT validation against an authorization server) later — the HTTP transport only asks this.
 */
export interface TokenVerifier {
  /** The token's holder, or undefined when the token is not valid. Never throws for a bad token. */
  verify(token: string): Promise<VerifiedToken | undefined>;
}

/**
 * Bearer tokens from a list (`--auth-token-file`, WORKGRAPH_AUTH_TOKENS). Tokens are compared as SHA-256 digests with
 * `timingSafeEqual`, every configured token each time, so neither a token's content nor its length leaks through the
 * answer's timing.
 */
export class StaticTokenVerifier implements TokenVerifier {
  private readonly digests: Array<{ digest: Buffer; clientId: string }>;

  constructor(tokens: readonly string[]) {
    if (tokens.length === 0) throw new Error('StaticTokenVerifier: at least one token is required');
    this.digests = tokens.map((t) => {
      const digest = sha256(t);
      // The client id names the token without revealing it: the first 12 hex digits of its digest.
      return { digest, clientId: `token-${digest.toString('hex').slice(0, 12)}` };
    });
  }

  async verify(token: string): Promise<VerifiedToken | undefined> {
    const presented = sha256(token);
    let match: string | undefined;
    for (const { digest, clientId } of this.digests) {
      if (timingSafeEqual(presented, digest) && match === undefined) match = clientId;
    }
    return match === undefined ? undefined : { token, clientId: match, scopes: [] };
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Reads a token file: one token per line, blank lines and `#` comments ignored, surrounding spaces trimmed.
 * @throws Error naming the file when it cannot be read or holds no token.
 */
export function readTokenFile(file: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`--auth-token-file: cannot read '${file}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const tokens = parseTokenLines(text);
  if (tokens.length === 0) throw new Error(`--auth-token-file: '${file}' holds no token (one per line; blank lines and # comments are ignored)`);
  return tokens;
}

export function parseTokenLines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** WORKGRAPH_AUTH_TOKENS: comma-separated tokens (spaces around each trimmed, empty entries ignored). */
export function parseTokenList(value: string): string[] {
  return value
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
}
