import type { AddressInfo } from 'node:net';
import type { DependencyContainer } from 'tsyringe';
import type { AppConfig } from '../kernel/config/app-config';
import type { Logger } from '../kernel/logger';
import { GraphTokens, graphRuntime, type GraphHost } from '../modules/graph';
import { createHttpServer } from '../kernel/http/request-entry';
import { createDashboardApp } from './dashboard-app';
import { randomToken, singleToken } from './http/access-token';
import type { TokenEntry } from '../kernel/auth/token-file';
import { StaticTokenVerifier } from '../kernel/auth/token-verifier';

/**
 * The stores the dashboard reads, built by whoever starts it (the CLI builds them the way `serve` does: a server core
 * and its container — the same change-event port, the database's change bridge with --database-url). The dashboard
 * never builds them itself: it is composed from below, so it imports nothing of the server.
 */
export interface DashboardStores {
  container: DependencyContainer;
  /** Closes what the stores opened (database pool, change bridge, watchers): called once, on close. */
  shutdown(): Promise<void>;
}

export interface StartDashboardOptions {
  config: AppConfig;
  logger: Logger;
  /** Builds the stores (called once, at start). */
  stores: () => DashboardStores;
  /** Default 4320; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /**
   * The tokens that open it (`--auth-token-file`, read by the one token reader, src/cli/auth-tokens.ts); any of them
   * opens the API. Default: a random token of its own.
   */
  tokens?: readonly TokenEntry[];
  allowActions?: boolean;
}

export interface RunningDashboard {
  /** The URL to open, with the access token (URL-encoded). */
  url: string;
  port: number;
  /** The token in that URL: the random one, or the first of `tokens`. */
  token: string;
  close(): Promise<void>;
}

/** `workgraph dashboard`: the web UI and its JSON/SSE API on their own HTTP server, over the stores it is handed. */
export async function startDashboard(o: StartDashboardOptions): Promise<RunningDashboard> {
  const stores = o.stores();
  const container = stores.container;
  if (o.config.graphPaths.length) {
    const host = container.resolve<GraphHost>(GraphTokens.GraphHost);
    // A broken graph file must not keep the dashboard from starting: the graph page then lists what did load.
    const { failed } = await host.reloadFiles(await graphRuntime().expandGraphPaths(o.config.graphPaths));
    for (const f of failed) o.logger.warn('graph file not loaded', { file: f.file, err: f.error.message });
  }
  const token = o.tokens?.length ? o.tokens[0].token : randomToken();
  const verifier = o.tokens?.length ? new StaticTokenVerifier(o.tokens) : undefined;
  const authorize = verifier
    ? async (given: string | undefined) => (given !== undefined ? ((await verifier.verify(given))?.identity ?? false) : false)
    : singleToken(token);
  const app = createDashboardApp({ container, config: o.config, logger: o.logger, authorize, allowActions: o.allowActions ?? false });
  // The one request entry of workgraph's HTTP servers: malformed targets 400, unknown paths 404, exceptions 500 and a
  // log line, stalled clients timed out (see src/kernel/http/request-entry.ts).
  const server = createHttpServer({ handle: app.handle, logger: o.logger.child({ component: 'dashboard' }) });
  const hostName = o.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 4320, hostName, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = hostName.includes(':') ? `[${hostName}]` : hostName;
  return {
    url: `http://${shownHost}:${port}/?token=${encodeURIComponent(token)}`,
    port,
    token,
    async close() {
      await app.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await (container.resolve<GraphHost>(GraphTokens.GraphHost).close().catch(() => undefined));
      await stores.shutdown();
    },
  };
}
