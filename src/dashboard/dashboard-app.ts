import * as path from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import type { ChangeEvents } from '../kernel/change-events';
import type { AppConfig } from '../kernel/config/app-config';
import { packageRoot } from '../kernel/config/package-root';
import type { Logger } from '../kernel/logger';
import { Tokens } from '../kernel/tokens';
import { changeReachersIn } from '../kernel/change-reachers';
import { ContainerBackend } from './container-backend';
import { DataDirWatcher } from './data-dir-watcher';
import { DashboardHttp, type DashboardHttpOptions } from './http/dashboard-http';

export interface DashboardAppOptions {
  container: DependencyContainer;
  config: AppConfig;
  logger: Logger;
  /** Which tokens open the API (see {@link singleToken}; `serve` passes its HTTP bearer-token verifier). */
  authorize: DashboardHttpOptions['authorize'];
  allowActions: boolean;
  /** Path prefix (default '/'; `serve --http … --dashboard` mounts it under '/dashboard/'). */
  basePath?: string;
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
 * The dashboard over a container: its API answered by the modules' use cases, live updates from the container's
 * change-event port — which the stores of this process publish to, the data-dir watcher feeds with every other
 * process's file changes, and (with --database-url) the PostgreSQL bridge feeds with every host's changes.
 * Mountable on any Node HTTP server.
 */
export function createDashboardApp(o: DashboardAppOptions): DashboardApp {
  const events = o.container.resolve<ChangeEvents>(Tokens.ChangeEvents);
  // File mode: other processes' writes to the data dir. In PostgreSQL mode every store (tasks, sessions, knowledge,
  // graph runs) notifies through the bridge and writes nothing there the watcher would announce: it costs nothing.
  const watcher = new DataDirWatcher(o.config.dataDir, events, (err) => o.logger.warn('data dir watch failed', { err: err.message })).start();
  // The database's LISTEN starts with the database itself (a container built over a server core bridges NOTIFY into
  // `events`): built now, so other hosts' changes are heard before the first API call.
  if (o.config.database) o.container.resolve(Tokens.Database);
  const backend = new ContainerBackend(o.container);
  const http = new DashboardHttp({
    backend,
    authorize: o.authorize,
    allowActions: o.allowActions,
    staticRoot: dashboardStaticRoot(),
    events,
    reachers: () => changeReachersIn(o.container),
    logger: o.logger.child({ component: 'dashboard' }),
    info: { version: o.config.version, dataDir: o.config.dataDir, sessions: backend.sessionsAvailable },
    ...(o.basePath ? { basePath: o.basePath } : {}),
  });
  return {
    handle: http.handle,
    async close() {
      http.close();
      watcher.close();
    },
  };
}
