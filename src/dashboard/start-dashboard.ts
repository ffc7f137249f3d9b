import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from '../kernel/config/app-config';
import type { Logger } from '../kernel/logger';
import { GraphTokens, graphRuntime, type GraphHost } from '../modules/graph';
import { createContainer } from '../server/container';
import { createServerCore } from '../server/server-core';
import { createDashboardApp } from './dashboard-app';
import { randomToken, singleToken } from './http/access-token';

export interface StartDashboardOptions {
  config: AppConfig;
  logger: Logger;
  /** Default 4320; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default: a random token. */
  token?: string;
  allowActions?: boolean;
}

export interface RunningDashboard {
  /** The URL to open, with the access token. */
  url: string;
  port: number;
  token: string;
  close(): Promise<void>;
}

/**
 * `workgraph dashboard`: the web UI and its JSON/SSE API on their own HTTP server, over stores built the way `serve`
 * builds them (a server core and its container: the same change-event port, the database's change bridge with
 * --database-url, the same shutdown of pools and watchers).
 */
export async function startDashboard(o: StartDashboardOptions): Promise<RunningDashboard> {
  const core = createServerCore(o.config, o.logger);
  const container = createContainer(o.config, o.logger, { core });
  if (o.config.graphPaths.length) {
    const host = container.resolve<GraphHost>(GraphTokens.GraphHost);
    // A broken graph file must not keep the dashboard from starting: the graph page then lists what did load.
    const { failed } = await host.reloadFiles(await graphRuntime().expandGraphPaths(o.config.graphPaths));
    for (const f of failed) o.logger.warn('graph file not loaded', { file: f.file, err: f.error.message });
  }
  const token = o.token ?? randomToken();
  const app = createDashboardApp({ container, config: o.config, logger: o.logger, authorize: singleToken(token), allowActions: o.allowActions ?? false });
  const server = http.createServer((req, res) => {
    if (!app.handle(req, res)) {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not found');
    }
  });
  const hostName = o.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port ?? 4320, hostName, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const shownHost = hostName.includes(':') ? `[${hostName}]` : hostName;
  return {
    url: `http://${shownHost}:${port}/?token=${token}`,
    port,
    token,
    async close() {
      await app.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await (container.resolve<GraphHost>(GraphTokens.GraphHost).close().catch(() => undefined));
      // Database pool (and its change bridge) and whatever else the modules registered for shutdown.
      await core.lifecycle.beginShutdown('dashboard stopped', { graceMs: 0 });
    },
  };
}
