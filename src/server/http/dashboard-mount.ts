import type { DependencyContainer } from 'tsyringe';
import type { AppConfig } from '../../kernel/config/app-config';
import type { Logger } from '../../kernel/logger';
import type { Lifecycle } from '../../kernel/lifecycle';
import type { HttpMount } from './http-transport-server';
import type { TokenVerifier } from '../../kernel/auth/token-verifier';

/** Where `serve --http … --dashboard` serves the dashboard. */
export const DASHBOARD_PATH = '/dashboard/';

export interface DashboardMount extends HttpMount {
  /** The URL to print once listening: with the dashboard's own random token when /mcp has none. */
  url(origin: string): string;
}

/**
 * The web dashboard mounted beside `/mcp` (`serve --http … --dashboard`), over the server's own container — the same
 * stores, graph tools and change events as its MCP sessions. Its API opens with the same bearer tokens as `/mcp`;
 * without tokens (a loopback bind) it gets a random token of its own, printed with its URL, since a browser page on
 * this machine could otherwise read it. Loaded only with --dashboard: `serve`'s cold start requires none of this.
 */
export function mountDashboard(o: {
  container: DependencyContainer;
  config: AppConfig;
  logger: Logger;
  lifecycle: Lifecycle;
  verifier: TokenVerifier | undefined;
  allowActions: boolean;
}): DashboardMount {
  const { createDashboardApp } = require('../../dashboard/dashboard-app') as typeof import('../../dashboard/dashboard-app');
  const { randomToken, singleToken } = require('../../dashboard/http/access-token') as typeof import('../../dashboard/http/access-token');
  const verifier = o.verifier;
  const own = verifier ? undefined : randomToken();
  const authorize = verifier
    ? async (given: string | undefined) => {
        if (!given) return false;
        const v = await verifier.verify(given);
        // As the token's identity: the dashboard shows what that identity reaches, no more.
        return v !== undefined && (v.expiresAt === undefined || v.expiresAt * 1000 > Date.now()) ? v.identity : false;
      }
    : singleToken(own!);
  const app = createDashboardApp({ container: o.container, config: o.config, logger: o.logger, authorize, allowActions: o.allowActions, basePath: DASHBOARD_PATH });
  o.lifecycle.onShutdown('dashboard', () => app.close());
  return {
    basePath: DASHBOARD_PATH,
    handle: (req, res, target) => app.handle(req, res, target),
    url: (origin) => `${origin}${DASHBOARD_PATH}${own ? `?token=${own}` : '?token=<one of the --auth-token-file tokens>'}`,
  };
}
