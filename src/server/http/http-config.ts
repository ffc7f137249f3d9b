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
  oauth?: { issuer: string; audience: string; jwksUrl?: string };
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
