import type { Logger } from '../../kernel/logger';
import type { ServerHost } from '../run-server';
import type { HttpConfig } from './http-config';
import { HttpTransportServer } from './http-transport-server';
import { StaticTokenVerifier } from './token-verifier';

/** Stdio's bound on one message, kept for HTTP request bodies (the SDK's transport alone would stop at 4 MiB). */
export const MAX_HTTP_BODY_BYTES = 16 * 1024 * 1024;

/** Starts the streamable HTTP transport over the server host: one protocol server per HTTP session. */
export async function startHttpTransport(host: ServerHost, config: HttpConfig, logger: Logger): Promise<HttpTransportServer> {
  const server = new HttpTransportServer({
    listen: config.listen,
    newSession: () => {
      const session = host.newSession();
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
    verifier: config.tokens.length > 0 ? new StaticTokenVerifier(config.tokens) : undefined,
    allowedHosts: config.allowedHosts,
    allowedOrigins: config.allowedOrigins,
    publicUrl: config.publicUrl,
    sessionIdleTimeoutMs: config.sessionIdleTimeoutMs,
    maxSessions: config.maxSessions,
    maxBodyBytes: MAX_HTTP_BODY_BYTES,
    ready: () => host.ready(),
    logger: logger.child({ component: 'http' }),
  });
  await server.listen();
  return server;
}
