import type { TokenEntry } from '../../kernel/auth/token-file';
import type { ListenAddress } from './listen-address';
import type { HttpTimeouts } from '../../kernel/http/request-entry';

/** The HTTP transport's settings, resolved from flags and environment variables (see src/cli/resolve-http-config.ts). */
export interface HttpConfig {
  listen: ListenAddress;
  /** Serve stdio as well (`--stdio`); with `--http` alone stdio is off. */
  stdio: boolean;
  /**
   * Bearer tokens and the identities they map to (`--auth-token-file`, WORKGRAPH_AUTH_TOKENS; see
   * src/kernel/auth/token-file.ts); empty means no authentication (loopback only).
   */
  tokens: TokenEntry[];
  /** `--oauth-issuer` / `--oauth-audience`: JWT access tokens of this authorization server are accepted too. */
  oauth?: OAuthSettings;
  allowedHosts: string[];
  allowedOrigins: string[];
  /** The URL clients use when a proxy sits in front (`--public-url`); named in the protected-resource metadata. */
  publicUrl?: string;
  /** Default 30 minutes. */
  sessionIdleTimeoutMs: number;
  /** Default 100. */
  maxSessions: number;
  /** `--dashboard`: the web dashboard at /dashboard/, under the same tokens as /mcp (actions with --allow-actions). */
  dashboard?: { allowActions: boolean };
  /** Node's header, request and keep-alive timeouts; defaults in request-entry.ts (HTTP_TIMEOUT_DEFAULTS). */
  timeouts?: Partial<HttpTimeouts>;
}

export const HTTP_DEFAULTS = { sessionIdleTimeoutMs: 30 * 60_000, maxSessions: 100 } as const;

/** The OAuth resource server's settings (docs/http.md "OAuth"). */
export interface OAuthSettings {
  issuer: string;
  audience: string;
  jwksUrl?: string;
  /** The access-token claim naming the identity's roots (`--oauth-roots-claim`; default `workgraph_roots`). */
  rootsClaim: string;
  /** Roots per subject (`sub`), from the config file's `oauth.subjects`: used when a token has no roots claim. */
  subjects: Record<string, string[]>;
  /**
   * What a token with neither reaches: `operator` (default) the operator's `--allow-root` roots, unnarrowed, like a
   * plain token line; `none` no folder at all (it sees no task project, session or folder-named knowledge project).
   */
  unmappedRoots: 'operator' | 'none';
}
