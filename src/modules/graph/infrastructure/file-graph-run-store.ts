import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { NotFoundError } from '../../../kernel/errors';
import { summarizeRun, type GraphRunRecord, type GraphRunSummary } from '../domain/graph-run-record';
import type { GraphRunStore } from '../application/ports/graph-run-store';
import { writeFileAtomic } from '../../../kernel/files/atomic-write';
import { makeDir } from '../../../kernel/files/make-dir';

/** Runs kept per tool by default (`graphRuns.keepPerTool`). */
export const DEFAULT_RUNS_PER_TOOL = 20;
const RUNS_DIR = 'graph-runs';
const RECORD = /^(\d{13})-([A-Za-z0-9_-]+)\.json$/;
const SUMMARY_SUFFIX = '.summary.json';

/** A tool name as a folder name: safe names as they are, anything else hex-encoded (`~` prefix). */
function toolDirName(tool: string): string {
  return /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,100}$/.test(tool) ? tool : `~${Buffer.from(tool, 'utf8').toString('hex').slice(0, 200)}`;
}

/**
 * Graph runs as files in `<data-dir>/graph-runs/<tool>/`: `<start-ms>-<run-id>.json` holds the record and a small
 * `.summary.json` beside it serves lists without reading whole records. Both are written atomically (temp file and
 * rename), the summary last, so a listed run is always complete; every process sharing the data dir sees them.
 * After each save the tool's oldest runs beyond `keepPerTool` are removed.
 */
export class FileGraphRunStore implements GraphRunStore {
  private readonly root: string;

  constructor(dataDir: string, private readonly keepPerTool = DEFAULT_RUNS_PER_TOOL) {
    this.root = path.join(dataDir, RUNS_DIR);
  }

  async save(record: GraphRunRecord): Promise<void> {
    const dir = path.join(this.root, toolDirName(record.tool));
    await makeDir(dir);
    const base = `${String(Date.parse(record.startedAt)).padStart(13, '0')}-${record.runId}`;
    await writeFileAtomic(path.join(dir, `${base}.json`), JSON.stringify(record));
    await writeFileAtomic(path.join(dir, `${base}${SUMMARY_SUFFIX}`), JSON.stringify(summarizeRun(record)));
    await this.prune(dir);
  }

  async list(opts: { tool?: string; limit?: number } = {}): Promise<GraphRunSummary[]> {
    const dirs = opts.tool !== undefined ? [toolDirName(opts.tool)] : await this.toolDirs();
    const names: Array<{ dir: string; name: string }> = [];
    for (const d of dirs) for (const name of await this.recordNames(path.join(this.root, d))) names.push({ dir: d, name });
    names.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0));
    const out: GraphRunSummary[] = [];
    for (const { dir, name } of names.slice(0, opts.limit ?? names.length)) {
      try {
        const text = await fs.readFile(path.join(this.root, dir, name.replace(/\.json$/, SUMMARY_SUFFIX)), 'utf8');
        out.push(JSON.parse(text) as GraphRunSummary);
      } catch {
        // Pruned by another process between the listing and the read, or its summary not written yet: skip it.
      }
    }
    return out;
  }

  async get(runId: string): Promise<GraphRunRecord> {
    if (!/^[A-Za-z0-9_-]+$/.test(runId)) throw new NotFoundError('graph run', runId);
    for (const d of await this.toolDirs()) {
      const name = (await this.recordNames(path.join(this.root, d))).find((n) => n.endsWith(`-${runId}.json`));
      if (!name) continue;
      try {
        return JSON.parse(await fs.readFile(path.join(this.root, d, name), 'utf8')) as GraphRunRecord;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') break;
        throw e;
      }
    }
    throw new NotFoundError('graph run', runId, `graph run '${runId}' is not recorded (runs are kept for the last ${this.keepPerTool} runs of each tool)`);
  }

  private async toolDirs(): Promise<string[]> {
    try {
      return (await fs.readdir(this.root, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
  }

  /** Record file names of a tool folder (summaries and temp files left out). */
  private async recordNames(dir: string): Promise<string[]> {
    try {
      return (await fs.readdir(dir)).filter((n) => RECORD.test(n));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
  }

  private async prune(dir: string): Promise<void> {
    const names = (await this.recordNames(dir)).sort();
    for (const name of names.slice(0, Math.max(0, names.length - this.keepPerTool))) {
      // Summary first: a run disappears from lists before its record goes.
      await fs.rm(path.join(dir, name.replace(/\.json$/, SUMMARY_SUFFIX)), { force: true });
      await fs.rm(path.join(dir, name), { force: true });
    }
  }
}
