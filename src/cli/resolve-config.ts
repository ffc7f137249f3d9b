import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AppConfig, WorkflowSource } from '../infrastructure/config/app-config';
import { packageRoot, packageVersion } from '../infrastructure/config/package-root';

/** Flags shared by the commands that load workflows, graphs or data. */
export interface CommonFlags {
  workflows?: string[];
  graphs?: string[];
  dataDir?: string;
  allowRoot?: string[];
  logLevel?: string;
  /** `--output-tail BYTES` (serve). */
  outputTail?: number;
}

/** Default of `--output-tail`: 8 KiB per stream. */
export const DEFAULT_OUTPUT_TAIL_BYTES = 8 * 1024;

/**
 * Resolves the configuration: a flag beats its environment variable beats the default (DESIGN.md §3).
 * Workflow sources in override order: bundled `workflows/`, `./workflows` of the working directory when it exists,
 * WORKGRAPH_WORKFLOWS_PATH folders (colon-separated), `--workflows` folders.
 */
export function resolveConfig(flags: CommonFlags, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): AppConfig {
  const split = (v: string | undefined) => (v ? v.split(path.delimiter).filter(Boolean) : []);
  const abs = (p: string) => path.resolve(cwd, p);

  const workflowSources: WorkflowSource[] = [{ dir: path.join(packageRoot(), 'workflows'), source: 'bundled' }];
  const projectDir = path.join(cwd, 'workflows');
  if (path.resolve(projectDir) !== path.resolve(packageRoot(), 'workflows') && isDir(projectDir)) {
    workflowSources.push({ dir: projectDir, source: 'project' });
  }
  for (const d of split(env.WORKGRAPH_WORKFLOWS_PATH)) workflowSources.push({ dir: abs(d), source: 'env' });
  for (const d of flags.workflows ?? []) workflowSources.push({ dir: abs(d), source: 'flag' });

  const graphPaths = flags.graphs?.length ? flags.graphs.map(abs) : split(env.WORKGRAPH_GRAPHS_PATH).map(abs);
  const allowedRoots = flags.allowRoot?.length ? flags.allowRoot.map(abs) : split(env.WORKGRAPH_ALLOWED_ROOTS).map(abs);
  const dataDir = abs(flags.dataDir ?? env.WORKGRAPH_DATA_DIR ?? defaultDataDir(env));

  return {
    version: packageVersion(),
    workflowSources,
    graphPaths,
    dataDir,
    allowedRoots,
    logLevel: flags.logLevel ?? env.WORKGRAPH_LOG_LEVEL ?? 'info',
    knowledge: {
      backupMaxAgeDays: positiveInt(env.WORKGRAPH_BACKUP_MAX_AGE_DAYS, 90),
      backupMaxCount: positiveInt(env.WORKGRAPH_BACKUP_MAX_COUNT, 50),
    },
    workflowCacheTtlMs: 5_000,
    outputTailBytes: flags.outputTail ?? positiveInt(env.WORKGRAPH_OUTPUT_TAIL, DEFAULT_OUTPUT_TAIL_BYTES),
  };
}

/** `$XDG_DATA_HOME/workgraph` or `~/.local/share/workgraph`. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME) ? env.XDG_DATA_HOME : path.join(os.homedir(), '.local', 'share');
  return path.join(base, 'workgraph');
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function positiveInt(v: string | undefined, fallback: number): number {
  const n = v === undefined ? NaN : Number(v);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}
