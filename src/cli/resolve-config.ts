import * as fs from 'node:fs';
import * as path from 'node:path';
import { MODULE_NAMES, type AppConfig, type ModuleName, type WorkflowSource } from '../kernel/config/app-config';
import { configDefaults } from '../kernel/config/config-defaults';
import { packageRoot, packageVersion } from '../kernel/config/package-root';
import { ConfigFileError, readConfigFile } from './config-file';

export { defaultDataDir } from '../kernel/config/config-defaults';

/** Flags shared by the commands that load workflows, graphs or data. */
export interface CommonFlags {
  workflows?: string[];
  graphs?: string[];
  dataDir?: string;
  allowRoot?: string[];
  logLevel?: string;
  /** Comma-separated module names (env WORKGRAPH_MODULES). */
  modules?: string;
  onlyGraphs?: boolean;
  mcpConfig?: string[];
  /** PostgreSQL URL for the stores (env WORKGRAPH_DATABASE_URL). */
  databaseUrl?: string;
  /** Connections in the PostgreSQL pool (env WORKGRAPH_DATABASE_POOL_SIZE). Default 10. */
  databasePoolSize?: string;
  /** A JSON or YAML config file holding any of these settings (env WORKGRAPH_CONFIG); flags and env beat it. */
  config?: string;
  /** `--output-tail BYTES` (serve). */
  outputTail?: number;
  /** Sessions: blocked attempts in a row before a session needs a person (default 3). */
  maxBlockedAttempts?: string | number;
  /** Sessions: days after completion before a completed session is pruned (default 30). */
  sessionRetentionDays?: string | number;
  /** Seconds (`serve`): how long in-flight calls may finish once shutdown starts. */
  shutdownGrace?: string | number;
  /** MiB (`serve`): graph run history kept in total, per run, and the largest graph result. */
  graphHistoryMb?: string | number;
  graphRunHistoryMb?: string | number;
  graphResultMb?: string | number;
  sessionArtifactsMb?: string | number;
  sessionLogMb?: string | number;
  /** `serve`: graph runs recorded in the data dir per tool (0 records none). */
  graphRunsKeep?: string | number;
  /** `serve`: the graph authoring tools (env WORKGRAPH_GRAPH_AUTHORING=1). */
  graphAuthoring?: boolean;
  /** `serve`: `--no-ui` gives false (commander's default for the switch is true: not given). */
  ui?: boolean;
  /** `serve`: the dashboard's and the MCP Apps views' actions. */
  allowActions?: boolean;
  /** `serve`: MCP resource subscriptions one client session may hold (default 1,000). */
  maxSubscriptions?: string | number;
  /** `serve`: how long a task's claim holds without a call of its claimant (`30m`, `90s`, `1h`; a bare number is seconds). */
  claimTtl?: string | number;
  /** `serve`: failed verification runs in a row on one step before it needs a person (default 5). */
  maxVerificationAttempts?: string | number;
  /** `serve`: a verification command's time limit (`10m`, `90s`; a bare number is seconds). */
  verificationTimeout?: string | number;
  /** `serve`: never run verification commands on the server (env WORKGRAPH_AGENT_VERIFICATION=1). */
  agentVerification?: boolean;
}

/**
 * Resolves the configuration: a flag beats its environment variable beats the config file (`--config`,
 * WORKGRAPH_CONFIG) beats the default of {@link configDefaults} (docs/configuration.md).
 * Workflow sources in override order: bundled `workflows/`, `./workflows` of the working directory when it exists,
 * WORKGRAPH_WORKFLOWS_PATH folders (colon-separated), `--workflows` folders.
 */
export function resolveConfig(flags: CommonFlags, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): AppConfig {
  const split = (v: string | undefined) => (v ? v.split(path.delimiter).filter(Boolean) : []);
  const abs = (p: string) => path.resolve(cwd, p);
  const defaults = configDefaults(env);
  const configFile = flags.config ?? env.WORKGRAPH_CONFIG;
  const file = (configFile ? readConfigFile(configFile, cwd) : {}) as Omit<CommonFlags, 'modules'> & { modules?: string[] };
  const list = (flag: string[] | undefined, envValue: string | undefined, fromFile: string[] | undefined) =>
    flag?.length ? flag.map(abs) : envValue ? split(envValue).map(abs) : (fromFile ?? []);

  const workflowSources: WorkflowSource[] = [{ dir: path.join(packageRoot(), 'workflows'), source: 'bundled' }];
  const projectDir = path.join(cwd, 'workflows');
  if (path.resolve(projectDir) !== path.resolve(packageRoot(), 'workflows') && isDir(projectDir)) {
    workflowSources.push({ dir: projectDir, source: 'project' });
  }
  for (const d of file.workflows ?? []) workflowSources.push({ dir: d, source: 'config' });
  for (const d of split(env.WORKGRAPH_WORKFLOWS_PATH)) workflowSources.push({ dir: abs(d), source: 'env' });
  for (const d of flags.workflows ?? []) workflowSources.push({ dir: abs(d), source: 'flag' });

  const graphPaths = list(flags.graphs, env.WORKGRAPH_GRAPHS_PATH, file.graphs);
  const allowedRoots = list(flags.allowRoot, env.WORKGRAPH_ALLOWED_ROOTS, file.allowRoot);
  const dataDir = abs(flags.dataDir ?? env.WORKGRAPH_DATA_DIR ?? file.dataDir ?? defaults.dataDir);

  return {
    ...defaults,
    version: packageVersion(),
    workflowSources,
    graphPaths,
    dataDir,
    allowedRoots,
    logLevel: flags.logLevel ?? env.WORKGRAPH_LOG_LEVEL ?? file.logLevel ?? defaults.logLevel,
    sessions: {
      maxBlockedAttempts: setting('--max-blocked-attempts', flags.maxBlockedAttempts ?? env.WORKGRAPH_MAX_BLOCKED_ATTEMPTS ?? file.maxBlockedAttempts, defaults.sessions.maxBlockedAttempts),
      completedRetentionDays: setting('--session-retention-days', flags.sessionRetentionDays ?? env.WORKGRAPH_SESSION_RETENTION_DAYS ?? file.sessionRetentionDays, defaults.sessions.completedRetentionDays),
      artifactsMaxBytes: mebibytes(flags, env, file, 'sessionArtifactsMb', 'WORKGRAPH_SESSION_ARTIFACTS_MB', defaults.sessions.artifactsMaxBytes!),
      logMaxBytes: mebibytes(flags, env, file, 'sessionLogMb', 'WORKGRAPH_SESSION_LOG_MB', defaults.sessions.logMaxBytes!),
    },
    modules: parseModules(flags.modules ?? env.WORKGRAPH_MODULES ?? file.modules?.join(',')) ?? defaults.modules,
    onlyGraphs: flags.onlyGraphs ?? file.onlyGraphs ?? defaults.onlyGraphs,
    graphAuthoring: flags.graphAuthoring ?? envSwitch(env.WORKGRAPH_GRAPH_AUTHORING, 'WORKGRAPH_GRAPH_AUTHORING') ?? file.graphAuthoring ?? defaults.graphAuthoring,
    ui: {
      // `--no-ui` is the only way the flag is false; true is commander's default for it (not given).
      enabled: (flags.ui === false ? false : undefined) ?? envSwitch(env.WORKGRAPH_UI, 'WORKGRAPH_UI') ?? (file.ui as boolean | undefined) ?? defaults.ui.enabled,
      actions: flags.allowActions ?? (file.allowActions as boolean | undefined) ?? defaults.ui.actions,
    },
    mcpConfigFiles: flags.mcpConfig?.length ? flags.mcpConfig.map(abs) : (file.mcpConfig ?? defaults.mcpConfigFiles),
    ...databaseSettings(flags, env, file),
    knowledge: {
      backupMaxAgeDays: positiveInt(env.WORKGRAPH_BACKUP_MAX_AGE_DAYS, defaults.knowledge.backupMaxAgeDays),
      backupMaxCount: positiveInt(env.WORKGRAPH_BACKUP_MAX_COUNT, defaults.knowledge.backupMaxCount),
      searchCacheBytes: cacheMebibytes(env.WORKGRAPH_SEARCH_CACHE_MB, defaults.knowledge.searchCacheBytes!),
    },
    outputTailBytes: flags.outputTail ?? positiveInt(env.WORKGRAPH_OUTPUT_TAIL, (file.outputTail as number | undefined) ?? defaults.outputTailBytes),
    graphRunsPerTool: wholeNumber(
      ...firstOf([
        ['--graph-runs-keep', flags.graphRunsKeep],
        ['WORKGRAPH_GRAPH_RUNS_KEEP', env.WORKGRAPH_GRAPH_RUNS_KEEP],
        [`config file ${configFile}: graphRunsKeep`, file.graphRunsKeep],
      ]),
      defaults.graphRunsPerTool,
    ),
    maxSubscriptions: wholeNumber(
      ...firstOf([
        ['--max-subscriptions', flags.maxSubscriptions],
        ['WORKGRAPH_MAX_SUBSCRIPTIONS', env.WORKGRAPH_MAX_SUBSCRIPTIONS],
        [`config file ${configFile}: maxSubscriptions`, file.maxSubscriptions],
      ]),
      defaults.maxSubscriptions,
    ),
    shutdownGraceMs: seconds(
      ...firstOf([
        ['--shutdown-grace', flags.shutdownGrace],
        ['WORKGRAPH_SHUTDOWN_GRACE', env.WORKGRAPH_SHUTDOWN_GRACE],
        [`config file ${configFile}: shutdownGrace`, file.shutdownGrace],
      ]),
      defaults.shutdownGraceMs!,
    ),
    claimTtlMs: duration(
      ...firstOf([
        ['--claim-ttl', flags.claimTtl],
        ['WORKGRAPH_CLAIM_TTL', env.WORKGRAPH_CLAIM_TTL],
        [`config file ${configFile}: claimTtl`, file.claimTtl],
      ]),
      defaults.claimTtlMs!,
    ),
    verification: {
      maxAttempts: setting(
        '--max-verification-attempts',
        flags.maxVerificationAttempts ?? env.WORKGRAPH_MAX_VERIFICATION_ATTEMPTS ?? (file.maxVerificationAttempts as number | undefined),
        defaults.verification!.maxAttempts,
      ),
      timeoutMs: duration(
        ...firstOf([
          ['--verification-timeout', flags.verificationTimeout],
          ['WORKGRAPH_VERIFICATION_TIMEOUT', env.WORKGRAPH_VERIFICATION_TIMEOUT],
          [`config file ${configFile}: verificationTimeout`, file.verificationTimeout],
        ]),
        defaults.verification!.timeoutMs,
      ),
      agentOnly:
        flags.agentVerification ?? envSwitch(env.WORKGRAPH_AGENT_VERIFICATION, 'WORKGRAPH_AGENT_VERIFICATION') ?? (file.agentVerification as boolean | undefined) ?? defaults.verification!.agentOnly,
    },
    graph: {
      historyMaxBytes: mebibytes(flags, env, file, 'graphHistoryMb', 'WORKGRAPH_GRAPH_HISTORY_MB', defaults.graph!.historyMaxBytes),
      runHistoryMaxBytes: mebibytes(flags, env, file, 'graphRunHistoryMb', 'WORKGRAPH_GRAPH_RUN_HISTORY_MB', defaults.graph!.runHistoryMaxBytes),
      resultMaxBytes: mebibytes(flags, env, file, 'graphResultMb', 'WORKGRAPH_GRAPH_RESULT_MB', defaults.graph!.resultMaxBytes),
    },
  };
}

/**
 * One warning per workflow folder named by a flag, WORKGRAPH_WORKFLOWS_PATH or the config file that does not exist
 * (or is no folder): it is ignored, and `list` and `serve` both say so.
 */
export function missingWorkflowFolders(config: Pick<AppConfig, 'workflowSources'>): string[] {
  return config.workflowSources
    .filter((s) => s.source !== 'bundled' && s.source !== 'project' && !isDir(s.dir))
    .map((s) => `workflow folder ${s.dir} (${s.source}) does not exist or is not a folder; it is ignored`);
}

/**
 * `workflow,tasks` → the module names, in the canonical order; undefined when not set.
 * @throws ConfigFileError (a usage error, exit 2) naming an unknown module and listing the known ones, or for an empty list.
 */
export function parseModules(value: string | undefined): ModuleName[] | undefined {
  if (value === undefined) return undefined;
  const names = value.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const unknown = names.filter((n) => !(MODULE_NAMES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    throw new ConfigFileError(`--modules: unknown module${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `'${u}'`).join(', ')} (modules: ${MODULE_NAMES.join(', ')})`);
  }
  if (names.length === 0) throw new ConfigFileError(`--modules: no module named (modules: ${MODULE_NAMES.join(', ')})`);
  return MODULE_NAMES.filter((m) => names.includes(m));
}

/** The PostgreSQL settings (flag beats env beats config file), or nothing when no URL is given. */
function databaseSettings(flags: CommonFlags, env: NodeJS.ProcessEnv, file: Pick<CommonFlags, 'databaseUrl' | 'databasePoolSize'>): Pick<AppConfig, 'database'> {
  const url = flags.databaseUrl ?? env.WORKGRAPH_DATABASE_URL ?? file.databaseUrl;
  if (!url) return {};
  // Loaded only when a database is configured: a file-backed serve's cold start stays without the PostgreSQL helpers.
  const { isPostgresUrl, redactDatabaseUrl } = require('../kernel/postgres/database-url') as typeof import('../kernel/postgres/database-url');
  if (!isPostgresUrl(url)) throw new ConfigFileError(`--database-url: expected a postgres:// or postgresql:// URL, got ${redactDatabaseUrl(url)}`);
  const rawPool = flags.databasePoolSize ?? env.WORKGRAPH_DATABASE_POOL_SIZE ?? (file.databasePoolSize as unknown as number | undefined);
  const poolSize = rawPool === undefined ? 10 : Number(rawPool);
  if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 1000) throw new ConfigFileError(`--database-pool-size: expected an integer from 1 to 1000, got ${rawPool}`);
  return { database: { url, poolSize } };
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** A positive integer setting; anything else is a usage error naming the flag. */
function setting(flag: string, v: string | number | undefined, fallback: number): number {
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new ConfigFileError(`${flag}: expected a positive whole number, got ${JSON.stringify(v)}`);
  return n;
}

type MibKey = 'graphHistoryMb' | 'graphRunHistoryMb' | 'graphResultMb' | 'sessionArtifactsMb' | 'sessionLogMb';

/** A size in MiB (a positive number) from the flag, the variable or the config file, as bytes. */
function mebibytes(
  flags: CommonFlags,
  env: NodeJS.ProcessEnv,
  file: Pick<CommonFlags, MibKey>,
  key: MibKey,
  envName: string,
  fallbackBytes: number,
): number {
  const flag = `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
  const [v, from] = firstOf([
    [flag, flags[key]],
    [envName, env[envName]],
    [`config file: ${key}`, file[key]],
  ]);
  if (v === undefined) return fallbackBytes;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new ConfigFileError(`${from}: expected a size in MiB (a number above 0), got '${v}'`);
  return Math.round(n * 1024 * 1024);
}

/** The first setting given, with where it came from (for the error message). */
function firstOf(candidates: Array<[string, string | number | undefined]>): [string | number | undefined, string] {
  const found = candidates.find(([, v]) => v !== undefined && v !== '');
  return found ? [found[1], found[0]] : [undefined, ''];
}

/** A number of seconds (0 or more) as ms; a malformed value is an error naming where it came from. */
function seconds(v: string | number | undefined, from: string, fallbackMs: number): number {
  if (v === undefined) return fallbackMs;
  const n = Number(v);
  if (v === '' || !Number.isFinite(n) || n < 0) throw new ConfigFileError(`${from}: expected a number of seconds (0 or more), got '${v}'`);
  return Math.round(n * 1000);
}

/** `90` (seconds), `90s`, `30m`, `1h`, `500ms` → milliseconds; above 0. */
function duration(v: string | number | undefined, from: string, fallbackMs: number): number {
  if (v === undefined || v === '') return fallbackMs;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(String(v));
  const ms = m ? Number(m[1]) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'] : NaN;
  if (!Number.isFinite(ms) || ms <= 0) throw new ConfigFileError(`${from}: expected a duration such as 90s, 30m or 1h, got '${v}'`);
  return Math.round(ms);
}

/** WORKGRAPH_SEARCH_CACHE_MB: MiB (0 or more; 0 turns the cache off) as bytes; anything else is a usage error. */
function cacheMebibytes(v: string | undefined, fallbackBytes: number): number {
  if (v === undefined || v === '') return fallbackBytes;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new ConfigFileError(`WORKGRAPH_SEARCH_CACHE_MB: expected a size in MiB (0 or more, 0 turns the cache off), got '${v}'`);
  return Math.round(n * 1024 * 1024);
}

function positiveInt(v: string | undefined, fallback: number): number {
  const n = v === undefined ? NaN : Number(v);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** A whole number (0 or more); a malformed value is a usage error naming where it came from. */
function wholeNumber(v: string | number | undefined, from: string, fallback: number): number {
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new ConfigFileError(`${from}: expected a whole number (0 or more), got '${v}'`);
  return n;
}

/**
 * An environment switch: `1`/`true` or `0`/`false`; undefined when unset or empty.
 * @throws ConfigFileError (a usage error, exit 2) naming the variable for anything else.
 */
function envSwitch(value: string | undefined, name: string): boolean | undefined {
  const v = value?.trim().toLowerCase();
  if (!v) return undefined;
  if (v === '1' || v === 'true') return true;
  if (v === '0' || v === 'false') return false;
  throw new ConfigFileError(`${name}: expected 1 or 0, got '${value}'`);
}
