import * as path from 'node:path';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { isScope, type Scope } from '../../kernel/identity';
import type { Logger } from '../../kernel/logger';
import type { TokenVerifier, VerifiedToken } from '../../kernel/auth/token-verifier';

/** `--oauth-issuer` / `--oauth-audience` (or the config file's `oauth` section). */
export interface OAuthConfig {
  /** The authorization server's issuer identifier (`iss` of its tokens), e.g. `https://auth.example.com`. */
  issuer: string;
  /** This server as a resource (`aud` its tokens must name): its public MCP URL, e.g. `https://mcp.example.com/mcp`. */
  audience: string;
  /** The issuer's JWKS; default: the `jwks_uri` its metadata (RFC 8414, else OpenID discovery) names. */
  jwksUrl?: string;
  /** The claim naming the identity's roots (default `workgraph_roots`). */
  rootsClaim?: string;
  /** Roots per subject, for tokens without the claim. */
  subjects?: Record<string, string[]>;
  /** A token with neither: `operator` (default) the operator's roots unnarrowed, `none` no folder. */
  unmappedRoots?: 'operator' | 'none';
}

/** Clock skew allowed on `exp` and `nbf`, seconds. */
const CLOCK_TOLERANCE_S = 5;
const FETCH_TIMEOUT_MS = 5_000;

/**
 * OAuth 2.1 resource server (docs/http.md "OAuth"): accepts the JWT access tokens of one authorization server —
 * signature checked against the issuer's JWKS (fetched, cached and refreshed on an unknown key id by `jose`), `iss`,
 * `aud` (this server), `exp` (required) and `nbf` — and maps `sub` to the identity's name and `scope` (space-separated,
 * or an `scp` list) to its scopes; scopes workgraph does not know are ignored. Its roots (narrowing `--allow-root`, as
 * a token file's `roots=`) come from the token's roots claim (`workgraph_roots`: absolute folders, a list or one
 * string separated by ':'), else the config file's `oauth.subjects` entry for its `sub`, else `unmappedRoots`
 * decides: `operator` (default) not confined beyond `--allow-root`, `none` no folder at all. A roots claim that is
 * not absolute folders makes the token invalid: a malformed claim never widens a reach.
 */
export class OAuthTokenVerifier implements TokenVerifier {
  private jwks?: Promise<ReturnType<typeof createRemoteJWKSet>>;

  constructor(
    readonly config: OAuthConfig,
    private readonly logger: Logger,
  ) {}

  async verify(token: string): Promise<VerifiedToken | undefined> {
    if (token.split('.').length !== 3) return undefined;
    let payload: JWTPayload;
    try {
      const jwks = await this.keySet();
      ({ payload } = await jwtVerify(token, jwks, {
        issuer: this.config.issuer,
        audience: this.config.audience,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (e) {
      // Never the token itself: the reason only (expired, wrong audience, bad signature, JWKS unreachable).
      this.logger.debug('oauth access token refused', { reason: (e as { code?: string }).code ?? (e as Error).message });
      return undefined;
    }
    const name = String(payload.sub);
    const scopes = scopesOf(payload);
    const roots = this.rootsOf(payload, name);
    if (roots === false) return undefined;
    const identity = { name, ...(roots ? { roots } : {}), scopes };
    return { token, clientId: name, scopes, ...(payload.exp !== undefined ? { expiresAt: payload.exp } : {}), identity, kind: 'oauth' };
  }

  /** The identity's roots (undefined: not confined beyond --allow-root); false: a malformed claim, refuse the token. */
  private rootsOf(payload: JWTPayload, sub: string): string[] | undefined | false {
    const claim = payload[this.config.rootsClaim ?? 'workgraph_roots'];
    if (claim !== undefined) {
      const list = typeof claim === 'string' ? claim.split(':').filter(Boolean) : claim;
      if (!Array.isArray(list) || list.some((r) => typeof r !== 'string' || r.includes('\0') || !path.isAbsolute(r))) {
        this.logger.debug('oauth access token refused', { reason: `claim ${this.config.rootsClaim ?? 'workgraph_roots'}: expected absolute folders` });
        return false;
      }
      return (list as string[]).map((r) => path.resolve(r));
    }
    const mapped = this.config.subjects?.[sub];
    if (mapped) return [...mapped];
    return this.config.unmappedRoots === 'none' ? [] : undefined;
  }

  /** The JWKS, discovered once; a failed discovery is tried again on the next token. */
  private keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    this.jwks ??= this.discoverJwksUrl()
      .then((url) => createRemoteJWKSet(new URL(url), { timeoutDuration: FETCH_TIMEOUT_MS }))
      .catch((e: unknown) => {
        this.jwks = undefined;
        this.logger.warn('oauth: cannot reach the authorization server metadata', { issuer: this.config.issuer, err: (e as Error).message });
        throw e;
      });
    return this.jwks;
  }

  private async discoverJwksUrl(): Promise<string> {
    if (this.config.jwksUrl) return this.config.jwksUrl;
    const issuer = new URL(this.config.issuer);
    const suffix = issuer.pathname.replace(/\/+$/, '');
    const candidates = [
      `${issuer.origin}/.well-known/oauth-authorization-server${suffix}`,
      `${issuer.origin}${suffix}/.well-known/openid-configuration`,
    ];
    for (const url of candidates) {
      const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) }).catch(() => undefined);
      if (!res?.ok) continue;
      const meta = (await res.json().catch(() => undefined)) as { issuer?: string; jwks_uri?: string } | undefined;
      // RFC 8414 §3.3: the metadata must name the very issuer asked for.
      if (meta?.issuer !== this.config.issuer) throw new Error(`${url} names issuer ${JSON.stringify(meta?.issuer)}, not ${this.config.issuer}`);
      if (typeof meta.jwks_uri !== 'string') throw new Error(`${url} names no jwks_uri`);
      return meta.jwks_uri;
    }
    throw new Error(`no authorization server metadata at ${candidates.join(' or ')}`);
  }
}

function scopesOf(payload: JWTPayload): Scope[] {
  const raw = typeof payload.scope === 'string' ? payload.scope.split(' ') : Array.isArray(payload.scp) ? (payload.scp as unknown[]).map(String) : [];
  return [...new Set(raw.filter(isScope))];
}

/** Static tokens first (a digest comparison), then OAuth for what looks like a JWT. */
export class EitherTokenVerifier implements TokenVerifier {
  constructor(private readonly verifiers: readonly TokenVerifier[]) {}

  async verify(token: string): Promise<VerifiedToken | undefined> {
    for (const v of this.verifiers) {
      const verified = await v.verify(token);
      if (verified) return verified;
    }
    return undefined;
  }
}
