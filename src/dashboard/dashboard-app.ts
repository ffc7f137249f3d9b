import * as path from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import type { AppConfig } from '../kernel/config/app-config';
import { packageRoot } from '../kernel/config/package-root';
import type { Logger } from '../kernel/logger';
import type { ChangeEventSource } from './change-event';
import { ContainerBackend } from './container-backend';
import { DataDirWatcher } from './data-dir-watcher';
import { DashboardHttp } from './http/dashboard-http';

export interface DashboardAppOptions {
  container: DependencyContainer;
  config: AppConfig;
  logger: Logger;
  token: string;
  allowActions: boolean;
  /** Path prefix (default '/'; `serve --http … --dashboard` mounts it under '/dashboard/'). */
  basePath?: string;
  /** Default: a watcher of the config's data dir. */
  events?: ChangeEventSource;
}

export interface DashboardApp {
  /** A request listener; returns false for paths outside the base path (the caller answers them). */
  handle: DashboardHttp['handle'];
  close(): Promise<void>;
}

/** The built front end (dist/dashboard/web, beside the compiled dashboard server). */
export function dashboardStaticRoot(): string {
  return path.join(packageRoot(), 'dist', 'dashboard', 'web');
}

/**
 * The dashboard over a container: its API answered by the modules' use cases, live updates from the data dir's change
 * events. Mountable on any Node HTTP server.
 */
export function createDashboardApp(o: DashboardAppOptions): DashboardApp {
  const events = o.events ?? new DataDirWatcher(o.config.dataDir, (err) => o.logger.warn('data dir watch failed', { err: err.message })).start();
  const backend = new ContainerBackend(o.container);
  const http = new DashboardHttp({
    backend,
    token: o.token,
    allowActions: o.allowActions,
    staticRoot: dashboardStaticRoot(),
    events,
    logger: o.logger.child({ component: 'dashboard' }),
    info: { version: o.config.version, dataDir: o.config.dataDir, sessions: backend.sessionsAvailable },
    ...(o.basePath ? { basePath: o.basePath } : {}),
  });
  return {
    handle: http.handle,
    async close() {
      http.close();
      await events.close();
    },
  };
}
