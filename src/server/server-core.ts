import type { Logger } from '../kernel/logger';
import type { AppConfig } from '../kernel/config/app-config';
import { Lifecycle } from '../kernel/lifecycle';
import type { AllowedRootsPolicy } from '../kernel/files/allowed-roots-policy';
import { ToolRegistry } from '../kernel/tools/tool-registry';
import { InProcessChangeEvents, type ChangeEvents } from '../kernel/change-events';
import { FileWatchingChangeEvents } from '../kernel/files/file-watching-change-events';
import { builtinTools, servedModules } from './builtin-tools';
import { dataDirChangeFiles } from './change-event-files';

/**
 * The few objects a server needs before its first tool call: configuration, logger, lifecycle, tool registry and
 * path policy. Built without the DI container so that tsyringe, reflect-metadata and every module load only when the
 * first tool is called (cold start); the container then registers these same instances.
 */
export interface ServerCore {
  config: AppConfig;
  logger: Logger;
  lifecycle: Lifecycle;
  registry: ToolRegistry;
  pathPolicy: AllowedRootsPolicy;
  /**
   * One per process: every client session's resource subscriptions listen to the same stores. With a file data dir
   * it also hears the changes other server processes make to watched resources; with PostgreSQL every host's changes
   * arrive through LISTEN/NOTIFY instead.
   */
  changeEvents: ChangeEvents;
}

/** A tool registry holding the built-in tools of the modules served (origin `builtin`). */
function builtinRegistry(config: AppConfig): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(builtinTools(servedModules(config), { graphAuthoring: config.graphAuthoring }), 'builtin');
  return registry;
}

export function createServerCore(config: AppConfig, logger: Logger): ServerCore {
  let pathPolicy: AllowedRootsPolicy | undefined;
  return {
    config,
    logger,
    lifecycle: new Lifecycle({ graceMs: config.shutdownGraceMs, logger }),
    registry: builtinRegistry(config),
    // Built when the container first asks for it: the policy's file helpers stay out of the cold start.
    get pathPolicy() {
      return (pathPolicy ??= new (require('../kernel/files/allowed-roots-policy') as typeof import('../kernel/files/allowed-roots-policy')).AllowedRootsPolicy(
        config.allowedRoots,
      ));
    },
    changeEvents: config.database
      ? new InProcessChangeEvents()
      : new FileWatchingChangeEvents(dataDirChangeFiles(config.dataDir), (err) => logger.warn('cannot watch the data dir for changes by other processes', { err: err.message })),
  };
}
