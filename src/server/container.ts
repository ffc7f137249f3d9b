import 'reflect-metadata';
import { container as rootContainer, instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import { systemClock, systemTimers } from '../kernel/clock';
import { silentLogger, type Logger } from '../kernel/logger';
import type { AppConfig } from '../kernel/config/app-config';
import { configDefaults } from '../kernel/config/config-defaults';
import { ProjectLayout } from '../kernel/files/project-layout';
import { createServerCore, type ServerCore } from './server-core';
import { Tokens } from '../kernel/tokens';

export interface ContainerOptions {
  /**
   * Default false. When true the modules (use cases, storage, engines and the libraries they pull in: Ajv, JSONata,
   * proper-lockfile, ...) are registered on the first {@link ensureModules} call instead of now, so a server answers
   * `initialize` and `tools/list` before loading them (cold start).
   */
  lazyModules?: boolean;
  /** Instances already built for a server (registered as they are); default: built here. */
  core?: ServerCore;
}

const loaded = new WeakSet<DependencyContainer>();
const configs = new WeakMap<DependencyContainer, AppConfig>();

/**
 * The production container: foundation services, then every module's registrations (now, or on first use with
 * `lazyModules`).
 */
export function createContainer(config: AppConfig, logger: Logger, options: ContainerOptions = {}): DependencyContainer {
  const c = rootContainer.createChildContainer();
  const core = options.core ?? createServerCore(config, logger);
  c.registerInstance(Tokens.Config, config);
  c.registerInstance(Tokens.Logger, logger);
  c.registerInstance(Tokens.Clock, systemClock);
  c.registerInstance(Tokens.Timers, systemTimers);
  c.registerInstance(Tokens.PathPolicy, core.pathPolicy);
  c.registerInstance(Tokens.Lifecycle, core.lifecycle);
  c.registerInstance(Tokens.ChangeEvents, core.changeEvents);
  c.registerInstance(Tokens.WritesInProgress, core.lifecycle.writes);
  c.registerInstance(Tokens.ToolRegistry, core.registry);
  c.registerInstance(Tokens.ProjectFiles, new ProjectLayout(config.dataDir));
  // One format gate per data dir, shared by the stores: checked before reads, migrations run before the first write.
  c.register(Tokens.DataFormat, {
    useFactory: instanceCachingFactory(() => {
      const { DataFormat } = require('../kernel/files/data-format') as typeof import('../kernel/files/data-format');
      const { dataMigrations } = require('./data-migrations') as typeof import('./data-migrations');
      return new DataFormat(config.dataDir, dataMigrations(), `workgraph ${config.version}`, undefined, (step) =>
        logger.info('data dir migrated', { dataDir: config.dataDir, step: step.description, format: step.to }),
      );
    }),
  });
  // Ajv is loaded on the first validation, not at start.
  c.register(Tokens.SchemaRegistry, {
    useFactory: instanceCachingFactory(() => {
      const { SchemaRegistry } = require('../kernel/schema-registry') as typeof import('../kernel/schema-registry');
      return new SchemaRegistry();
    }),
  });
  // A server (given its core) hears every host's changes through LISTEN/NOTIFY; a CLI command needs no live changes.
  if (config.database) registerDatabase(c, config.database, core.lifecycle, options.core ? core.changeEvents : undefined, logger);
  configs.set(c, config);
  if (!options.lazyModules) ensureModules(c);
  return c;
}

/**
 * The PostgreSQL database, built on first resolve (the `pg` driver loads only then) and migrated before its first
 * query (under an advisory lock: several servers starting at once migrate once). Closed on shutdown.
 */
function registerDatabase(
  c: DependencyContainer,
  settings: NonNullable<AppConfig['database']>,
  lifecycle: ServerCore['lifecycle'],
  changeEvents: ServerCore['changeEvents'] | undefined,
  logger: Logger,
): void {
  let db: import('../kernel/postgres/pg-database').PgDatabase | undefined;
  c.register(Tokens.Database, {
    useFactory: () => {
      if (db) return db;
      const { PgDatabase } = require('../kernel/postgres/pg-database') as typeof import('../kernel/postgres/pg-database');
      const { migrate } = require('../kernel/postgres/migrations') as typeof import('../kernel/postgres/migrations');
      const { allMigrations } = require('./database-migrations') as typeof import('./database-migrations');
      db = new PgDatabase(settings.url, { poolSize: settings.poolSize }, async (d) => void (await migrate(d, allMigrations())));
      if (changeEvents) {
        const { PgChangeBridge } = require('../kernel/postgres/pg-change-bridge') as typeof import('../kernel/postgres/pg-change-bridge');
        const bridge = new PgChangeBridge(db, changeEvents, logger.child({ component: 'database-changes' }));
        db.onClose(() => bridge.close());
      }
      return db;
    },
  });
  lifecycle.onShutdown('database pool', () => db?.close());
}

/** Registers every module on `c` once (a no-op after the first call). */
export function ensureModules(c: DependencyContainer): DependencyContainer {
  if (loaded.has(c)) return c;
  loaded.add(c);
  const { moduleRegistrations } = require('./module-registrations') as typeof import('./module-registrations');
  const config = configs.get(c) ?? c.resolve<AppConfig>(Tokens.Config);
  for (const register of moduleRegistrations) register(c, config);
  return c;
}

/**
 * The test container: the production wiring with a silent logger, over the given (temp) folders. Tests override
 * single registrations on the returned container when they need to.
 */
export function createTestContainer(overrides: Partial<AppConfig> & { dataDir: string }): DependencyContainer {
  const config: AppConfig = { ...configDefaults({}), version: '0.0.0-test', logLevel: 'silent', ...overrides };
  return createContainer(config, silentLogger);
}
