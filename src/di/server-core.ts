import type { Logger } from '../application/ports/logger';
import type { AppConfig } from '../infrastructure/config/app-config';
import { Lifecycle } from '../infrastructure/lifecycle/lifecycle';
import { AllowedRootsPolicy } from '../infrastructure/paths/allowed-roots-policy';
import { ToolRegistry } from '../infrastructure/rpc/tool-registry';

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
}

export function createServerCore(config: AppConfig, logger: Logger): ServerCore {
  return {
    config,
    logger,
    lifecycle: new Lifecycle({ graceMs: config.shutdownGraceMs, logger }),
    registry: new ToolRegistry(),
    pathPolicy: new AllowedRootsPolicy(config.allowedRoots),
  };
}
