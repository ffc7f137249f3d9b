import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { systemClock } from '../application/ports/clock';
import { silentLogger, type Logger } from '../application/ports/logger';
import type { AppConfig } from '../infrastructure/config/app-config';
import { ProjectLayout } from '../infrastructure/files/project-layout';
import { Lifecycle } from '../infrastructure/lifecycle/lifecycle';
import { AllowedRootsPolicy } from '../infrastructure/paths/allowed-roots-policy';
import { ToolRegistry } from '../infrastructure/rpc/tool-registry';
import { SchemaRegistry } from '../application/services/schema-registry';
import { moduleRegistrations } from './modules';
import { Tokens } from './tokens';

/**
 * The production container: foundation services, then every module's registrations. Use cases are resolved lazily,
 * on a tool's first call.
 */
export function createContainer(config: AppConfig, logger: Logger): DependencyContainer {
  const c = rootContainer.createChildContainer();
  c.registerInstance(Tokens.Config, config);
  c.registerInstance(Tokens.Logger, logger);
  c.registerInstance(Tokens.Clock, systemClock);
  c.registerInstance(Tokens.PathPolicy, new AllowedRootsPolicy(config.allowedRoots));
  c.registerInstance(Tokens.Lifecycle, new Lifecycle());
  c.registerInstance(Tokens.ToolRegistry, new ToolRegistry());
  c.registerInstance(Tokens.ProjectFiles, new ProjectLayout(config.dataDir));
  c.registerSingleton(Tokens.SchemaRegistry, SchemaRegistry);
  for (const register of moduleRegistrations) register(c, config);
  return c;
}

/**
 * The test container: the production wiring with a silent logger, over the given (temp) folders. Tests override
 * single registrations on the returned container when they need to.
 */
export function createTestContainer(overrides: Partial<AppConfig> & { dataDir: string }): DependencyContainer {
  const config: AppConfig = {
    version: '0.0.0-test',
    workflowSources: [],
    graphPaths: [],
    allowedRoots: [],
    logLevel: 'silent',
    knowledge: { backupMaxAgeDays: 90, backupMaxCount: 50 },
    workflowCacheTtlMs: 5_000,
    ...overrides,
  };
  return createContainer(config, silentLogger);
}
