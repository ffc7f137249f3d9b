import { watch, type FSWatcher } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { systemClock, type Clock } from '../../../kernel/clock';
import { silentLogger, type Logger } from '../../../kernel/logger';
import { listWorkflowFiles } from './file-workflow-storage';
import { SnapshotWorkflowCatalog, type CatalogSnapshot, type WorkflowCatalog } from './workflow-catalog';

export interface CachingOptions {
  /** How long a snapshot is served without looking at the folders. Default 5,000 ms (AppConfig.workflowCacheTtlMs). */
  ttlMs?: number;
  /** Watch the folders (fs.watch) so a change is seen at once rather than after the TTL. Default true. */
  watch?: boolean;
}

interface Cached {
  snapshot: CatalogSnapshot;
  fingerprint: string;
  expiresAt: number;
}

/**
 * Serves the inner storage's snapshot from memory, so workflow_next does no file I/O on the hot path. Freshness:
 * - a change reported by fs.watch on a source folder drops the snapshot at once;
 * - after the TTL the folders are fingerprinted (names, sizes and mtimes of their `*.json` files, subfolders
 *   included, a few stat calls):
 *   unchanged → the snapshot is kept for another TTL; changed → reloaded. This catches what watching misses
 *   (network file systems, a symlinked file edited elsewhere).
 * Concurrent callers share one reload.
 */
export class CachingWorkflowStorage extends SnapshotWorkflowCatalog {
  private cached?: Cached;
  private loading?: Promise<CatalogSnapshot>;
  private dirty = false;
  private readonly ttlMs: number;
  private readonly watchers: FSWatcher[] = [];

  constructor(
    private readonly inner: WorkflowCatalog,
    options: CachingOptions = {},
    private readonly clock: Clock = systemClock,
    private readonly logger: Logger = silentLogger,
  ) {
    super();
    this.ttlMs = Math.max(0, options.ttlMs ?? 5000);
    if (options.watch ?? true) this.startWatching();
  }

  folders(): string[] {
    return this.inner.folders();
  }


  async snapshot(): Promise<CatalogSnapshot> {
    const cached = this.cached;
    if (cached && !this.dirty && this.clock.now() < cached.expiresAt) return cached.snapshot;
    if (!this.loading) {
      this.loading = this.refresh().finally(() => {
        this.loading = undefined;
      });
    }
    return this.loading;
  }

  /** Drops the cached snapshot; the next call reloads. */
  invalidate(): void {
    this.dirty = true;
  }

  /** Stops watching the folders. */
  close(): void {
    for (const w of this.watchers.splice(0)) w.close();
  }

  private async refresh(): Promise<CatalogSnapshot> {
    const wasDirty = this.dirty;
    this.dirty = false;
    // Fingerprint before loading: a change made during the load shows up as a different fingerprint next time.
    const fingerprint = await this.fingerprint();
    const cached = this.cached;
    if (cached && !wasDirty && cached.fingerprint === fingerprint) {
      cached.expiresAt = this.clock.now() + this.ttlMs;
      return cached.snapshot;
    }
    const snapshot = await this.inner.snapshot();
    this.cached = { snapshot, fingerprint, expiresAt: this.clock.now() + this.ttlMs };
    return snapshot;
  }

  private async fingerprint(): Promise<string> {
    const parts = await Promise.all(
      this.inner.folders().map(async (dir) => {
        let names: string[];
        try {
          names = await listWorkflowFiles(dir);
        } catch (e) {
          return `${dir}:${(e as NodeJS.ErrnoException).code ?? 'error'}`;
        }
        const stats = await Promise.all(
          names.map(async (n) => {
            try {
              const s = await fs.stat(path.join(dir, n));
              return `${n}:${s.size}:${s.mtimeMs}:${s.ino}`;
            } catch (e) {
              return `${n}:${(e as NodeJS.ErrnoException).code ?? 'error'}`;
            }
          }),
        );
        return `${dir}|${stats.join('|')}`;
      }),
    );
    return parts.join('\n');
  }

  private startWatching(): void {
    for (const dir of new Set(this.inner.folders())) {
      try {
        // persistent: false — watching must never keep the process alive.
        // recursive: subfolders (routines/, examples/…) are read too; Node 20 supports it on Linux, macOS and Windows.
        const w = watch(dir, { persistent: false, recursive: true }, () => {
          this.dirty = true;
        });
        w.on('error', (err) => {
          this.logger.debug(`stopped watching workflow folder ${dir}: ${err.message}; relying on the cache TTL`, { dir });
          w.close();
        });
        this.watchers.push(w);
      } catch (e) {
        // A folder that does not exist yet, or a platform without watching: the TTL fingerprint covers it.
        this.logger.debug(`not watching workflow folder ${dir}: ${(e as Error).message}`, { dir });
      }
    }
  }
}
