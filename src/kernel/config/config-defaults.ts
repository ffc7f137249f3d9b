import * as os from 'node:os';
import * as path from 'node:path';
import { MODULE_NAMES, type AppConfig } from './app-config';

/**
 * The one place defaults live (used by the CLI's resolveConfig, the container and the tests). Every setting a
 * flag, an environment variable or the config file can give starts here.
 *
 * Defaults: no graphs, no explicit allowed roots (client roots, else home + temp), log level `info`, knowledge backups
 * pruned at 90 days / 50 files, a 128 MiB PostgreSQL search cache, workflow cache 5 s, shutdown grace 10 s, every module served, no --only-graphs, no --mcp-config
 * files, the last 20 graph runs per tool recorded, graph run history 256 MiB kept in memory in total / 1 GiB per run,
 * graph results up to 16 MiB, sessions blocked after 3 refused outputs in a row and completed ones pruned after 30 days,
 * validation output tails 8 KiB per stream, 1,000 resource subscriptions per client session, task claims held 30
 * minutes without a call of their claimant,
 * data dir `$XDG_DATA_HOME/workgraph` or `~/.local/share/workgraph`.
 */
const MIB = 1024 * 1024;

export function configDefaults(env: NodeJS.ProcessEnv = process.env): AppConfig {
  return {
    version: '0.0.0',
    workflowSources: [],
    graphPaths: [],
    dataDir: defaultDataDir(env),
    allowedRoots: [],
    logLevel: 'info',
    knowledge: { backupMaxAgeDays: 90, backupMaxCount: 50, searchCacheBytes: 128 * MIB },
    workflowCacheTtlMs: 5_000,
    outputTailBytes: 8 * 1024,
    maxSubscriptions: 1_000,
    claimTtlMs: 30 * 60 * 1000,
    sessions: { maxBlockedAttempts: 3, completedRetentionDays: 30, artifactsMaxBytes: 1 * MIB, logMaxBytes: 64 * MIB },
    verification: { maxAttempts: 5, timeoutMs: 10 * 60 * 1000, agentOnly: false },
    graphRunsPerTool: 20,
    modules: [...MODULE_NAMES],
    onlyGraphs: false,
    graphAuthoring: false,
    ui: { enabled: true, actions: false },
    mcpConfigFiles: [],
    shutdownGraceMs: 10_000,
    graph: { historyMaxBytes: 256 * MIB, runHistoryMaxBytes: 1024 * MIB, resultMaxBytes: 16 * MIB },
  };
}

/** `$XDG_DATA_HOME/workgraph` or `~/.local/share/workgraph`. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(os.homedir(), '.local', 'share');
  return path.join(base, 'workgraph');
}
