import type { Identity } from '../kernel/identity';

/** Where a verified token's identity rides on the SDK's `AuthInfo` (`extra.authInfo.extra`) to the call's handler. */
export const IDENTITY_AUTH_KEY = 'workgraphIdentity';

/** The SDK's AuthInfo, as far as the server reads it. */
export interface AuthInfoLike {
  extra?: Record<string, unknown>;
}

/** AuthInfo carrying `identity`, for the HTTP transport to put on the request (`req.auth`). */
export function withIdentity<T extends AuthInfoLike>(auth: T, identity: Identity): T {
  return { ...auth, extra: { ...auth.extra, [IDENTITY_AUTH_KEY]: identity } };
}

/**
 * The identity a request runs as: the one its verified token maps to (HTTP with tokens), else the session's own
 * (`fallback`: the local identity for stdio and for HTTP without authentication). Only the server's transport sets
 * AuthInfo — nothing in a client's message reaches it.
 */
export function callerIdentity(authInfo: AuthInfoLike | undefined, fallback: Identity): Identity {
  const identity = authInfo?.extra?.[IDENTITY_AUTH_KEY] as Identity | undefined;
  return identity && typeof identity.name === 'string' && Array.isArray(identity.scopes) ? identity : fallback;
}
