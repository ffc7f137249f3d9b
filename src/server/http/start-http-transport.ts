import type { Logger } from '../../kernel/logger';
import type { ServerHost } from '../run-server';
import type { HttpConfig } from './http-config';
import { HttpTransportServer } from './http-transport-server';
import { StaticTokenVerifier, type TokenVerifier } from '../../kernel/auth/token-verifier';
import { requiredScope } from '../../kernel/tools/tool-definition';
import { createModernHttpEntry } from './modern-http-entry';

/** Stdio's bound on one message, kept for HTTP request bodies (the SDK's transport alone would stop at 4 MiB). */
export const MAX_HTTP_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Starts the streamable HTTP transport over the server host: one protocol server per HTTP session, and with
 * `--dashboard` the web dashboard at /dashboard/ (its URL logged once listening).
 */
export async function startHttpTransport(host: ServerHost, config: HttpConfig, logger: Logger): Promise<HttpTransportServer> {
  const verifier = tokenVerifier(config, logger);
  const dashboard = config.dashboard
    ? (require('./dashboard-mount') as typeof import('./dashboard-mount')).mountDashboard({
        container: host.container(),
        config: host.core.config,
        logger,
        lifecycle: host.core.lifecycle,
        verifier,
        allowActions: config.dashboard.allowActions,
      })
    : undefined;
  const server = new HttpTransportServer({
    listen: config.listen,
    newSession: () => {
      const session = host.newSession({ isolateLogs: true });
      let closing: Promise<void> | undefined;
      return {
        connect: (transport) => session.server.connect(transport),
        // The session is over (DELETE, idle, shutdown): nobody reads its answers any more, so its calls are cancelled.
        close: () =>
          (closing ??= (async () => {
            await session.end({ graceMs: 0 });
            await session.server.close();
          })()),
      };
    },
    verifier,
    ...(config.oauth ? { oauthIssuer: config.oauth.issuer } : {}),
    scopeOf: (name) => {
      const def = host.core.registry.get(name);
      return def ? requiredScope(def) : undefined;
    },
    allowedHosts: config.allowedHosts,
    allowedOrigins: config.allowedOrigins,
    publicUrl: config.publicUrl,
    sessionIdleTimeoutMs: config.sessionIdleTimeoutMs,
    maxSessions: config.maxSessions,
    ...sessionShare(config),
    maxBodyBytes: MAX_HTTP_BODY_BYTES,
    ready: () => host.ready(),
    logger: logger.child({ component: 'http' }),
    ...(config.timeouts ? { timeouts: config.timeouts } : {}),
    ...(dashboard ? { mount: dashboard } : {}),
    modern: createModernHttpEntry({ host, logger: logger.child({ component: 'http' }), maxBodyBytes: MAX_HTTP_BODY_BYTES }),
  });
  await server.listen();
  if (dashboard) {
    const origin = config.publicUrl?.replace(/\/+$/, '').replace(/\/mcp$/, '') ?? new URL(server.url).origin;
    logger.info(`dashboard (${config.dashboard!.allowActions ? 'actions enabled' : 'read-only'}) at ${dashboard.url(origin)}`);
  }
  return server;
}

/**
 * The session cap is shared fairly (issue 20: one token opened all 100 sessions, another got 503): with more than
 * one identity configured (or OAuth), each holds at most half of --max-sessions (at least one).
 */
function sessionShare(config: HttpConfig): { maxSessionsPerIdentity?: number } {
  const identities = new Set(config.tokens.map((t) => t.identity.name));
  // An authorization server's tokens may come from any number of identities.
  return identities.size > 1 || config.oauth ? { maxSessionsPerIdentity: Math.max(1, Math.floor(config.maxSessions / 2)) } : {};
}

/** The configured tokens, the OAuth issuer's access tokens, both, or none (no authentication: loopback only). */
function tokenVerifier(config: HttpConfig, logger: Logger): TokenVerifier | undefined {
  const verifiers: TokenVerifier[] = [];
  if (config.tokens.length > 0) verifiers.push(new StaticTokenVerifier(config.tokens));
  if (config.oauth) {
    // jose loads only when OAuth is configured.
    const { OAuthTokenVerifier } = require('./oauth-verifier') as typeof import('./oauth-verifier');
    verifiers.push(new OAuthTokenVerifier(config.oauth, logger.child({ component: 'oauth' })));
  }
  if (verifiers.length <= 1) return verifiers[0];
  const { EitherTokenVerifier } = require('./oauth-verifier') as typeof import('./oauth-verifier');
  return new EitherTokenVerifier(verifiers);
}
