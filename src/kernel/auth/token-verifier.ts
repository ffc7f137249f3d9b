import { createHash, timingSafeEqual } from 'node:crypto';
import type { Identity } from '../identity';
import type { TokenEntry } from './token-file';

/** Who a verified bearer token belongs to (the shape of the SDK's AuthInfo, so handlers see it as `authInfo`). */
export interface VerifiedToken {
  token: string;
  /** A stable, non-secret name for the token's holder (sessions are bound to it): its identity's name. */
  clientId: string;
  scopes: string[];
  /** Seconds since the epoch, when the token expires. */
  expiresAt?: number;
  /** Whom the token's calls run as: name, roots, scopes. */
  identity: Identity;
  /** Where it came from: a configured token, or an OAuth access token (whose holder can ask for more scope). */
  kind?: 'static' | 'oauth';
  /** AuthInfo's extension point: the HTTP transport carries the identity to the call's handler in it. */
  extra?: Record<string, unknown>;
}

/**
 * The port an authentication scheme plugs into: static bearer tokens (the token file), OAuth access tokens (JWTs of an
 * authorization server) — the HTTP transport and the dashboard only ask this.
 */
export interface TokenVerifier {
  /** The token's holder, or undefined when the token is not valid. Never throws for a bad token. */
  verify(token: string): Promise<VerifiedToken | undefined>;
}

/**
 * Bearer tokens from the token configuration (src/kernel/auth/token-file.ts). Tokens are compared as SHA-256 digests
 * with `timingSafeEqual`, every configured token each time, so neither a token's content nor its length leaks through
 * the answer's timing.
 */
export class StaticTokenVerifier implements TokenVerifier {
  private readonly digests: Array<{ digest: Buffer; identity: Identity }>;

  constructor(entries: readonly TokenEntry[]) {
    if (entries.length === 0) throw new Error('StaticTokenVerifier: at least one token is required');
    this.digests = entries.map((e) => ({ digest: sha256(e.token), identity: e.identity }));
  }

  async verify(token: string): Promise<VerifiedToken | undefined> {
    const presented = sha256(token);
    let match: Identity | undefined;
    for (const { digest, identity } of this.digests) {
      if (timingSafeEqual(presented, digest) && match === undefined) match = identity;
    }
    return match === undefined ? undefined : { token, clientId: match.name, scopes: [...match.scopes], identity: match, kind: 'static' };
  }
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
