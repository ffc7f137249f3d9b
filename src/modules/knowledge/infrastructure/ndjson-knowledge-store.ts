import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Clock } from '../../../kernel/clock';
import { systemClock } from '../../../kernel/clock';
import type { KnowledgeBackupCopy, KnowledgeBackupInfo, KnowledgeOwner, KnowledgeProjectExport, KnowledgeProjectInfo, KnowledgeReader, KnowledgeStore } from '../application/ports/knowledge-store';
import { projectIdentity } from '../domain/project-from-context';
import type { StoredKnowledgeNode } from '../domain/knowledge-node';
import { NotFoundError, StorageError } from '../../../kernel/errors';
import { writeFileAtomic } from '../../../kernel/files/atomic-write';
import { withFileLock, type FileLockOptions } from '../../../kernel/files/file-lock';
import { ProjectLayout } from '../../../kernel/files/project-layout';
import type { WritesInProgress } from '../../../kernel/writes-in-progress';
import type { DataFormatGate } from '../../../kernel/files/data-format';
import { BACKUP_NAME, listBackupFiles, statOrUndefined } from './backup-files';
import { readBackupFiles, writeBackupFiles } from './backup-file-copy';
import { knowledgePaths, type KnowledgePaths } from './knowledge-files';
import { forEachLine } from './line-reader';
import { NdjsonGraphReader } from './ndjson-graph-reader';
import { NdjsonGraphWriter } from './ndjson-graph-writer';
import { parseNode, readIo } from './ndjson-passes';
import { exportNdjsonProject, importNdjsonProject } from './ndjson-project-copy';
import { ownerFile, readOwner, takenFromFolder } from './ndjson-project-owner';
import type { Logger } from '../../../kernel/logger';
import type { ChangeEvents } from '../../../kernel/change-events';
import { DEFAULT_FLUSH, SearchIndexFiles, type FlushPolicy, type TailSlot } from './search-index/search-index';

export { PENDING_FILE } from './ndjson-graph-writer';
export { OWNER_FILE, readOwner } from './ndjson-project-owner';

export interface NdjsonKnowledgeStoreOptions {
  /** Time source for backup names. Default: the system clock. */
  clock?: Clock;
  /** Backups older than this are pruned after each new backup. Default 90. */
  backupMaxAgeDays?: number;
  /** At most this many backups are kept. Default 50. */
  backupMaxCount?: number;
  /** Project lock settings (defaults of withFileLock: stale 10 s, up to 30 s of waiting for another holder). */
  lock?: FileLockOptions;
  /** Where writes in progress are registered, so shutdown can wait for them. */
  writes?: WritesInProgress;
  /** The data dir's format gate: a newer format is refused, an older one migrated before the first write. */
  format?: DataFormatGate;
  /** Where the search index's rebuilds are logged. */
  logger?: Logger;
  /** Told of every write (`{kind: 'knowledge', project}`): live views and MCP resource subscriptions re-read. */
  changes?: ChangeEvents;
  /** When the search index's tail (its newest nodes, indexed in memory) is written as segments. Default DEFAULT_FLUSH (tests lower it). */
  searchFlush?: Partial<FlushPolicy>;
}

const PROJECT_ID = /^[a-z0-9][a-z0-9-]*$/;

/**
 * The knowledge store on NDJSON files, one folder per project (`<data-dir>/projects/<id>/`): the graph
 * (`knowledge_graph.ndjson`, append-only for adds), the deleted records (`knowledge_graph.deleted.ndjson`) and
 * `backup/` (a copy of the graph taken before each delete). Every write holds the project's proper-lockfile lock;
 * reads stream and take no lock.
 */
export class NdjsonKnowledgeStore implements KnowledgeStore {
  private readonly layout: ProjectLayout;
  private readonly clock: Clock;
  private readonly backupMaxAgeDays: number;
  private readonly backupMaxCount: number;

  constructor(dataDir: string, private readonly options: NdjsonKnowledgeStoreOptions = {}) {
    this.layout = new ProjectLayout(dataDir);
    this.clock = options.clock ?? systemClock;
    this.backupMaxAgeDays = options.backupMaxAgeDays ?? 90;
    this.backupMaxCount = options.backupMaxCount ?? 50;
  }

  location(project: string): string {
    return knowledgePaths(this.layout, project).graph;
  }

  /** Path keys whose owner file confirmed the project id (claims never change, so this needs no invalidation). */
  private readonly resolved = new Map<string, string>();

  async resolveProject(projectContext: string, opts: { claim?: boolean } = {}): Promise<string> {
    const ident = projectIdentity(projectContext);
    await this.options.format?.assertReadable();
    if (ident.pathKey === null || ident.altId === null) return ident.id;
    const known = this.resolved.get(ident.pathKey);
    if (known) return known;
    const paths = knowledgePaths(this.layout, ident.id);
    const owner = await readOwner(paths);
    if (takenFromFolder(owner, ident.pathKey)) return this.remember(ident.pathKey, ident.altId);
    if (owner.recorded) return this.remember(ident.pathKey, ident.id);
    if (!opts.claim) return ident.id;
    await this.options.format?.assertWritable();
    // Claim the plain id under its lock (two folders adding their first node at once get one owner).
    return withFileLock(
      paths.dir,
      async (lock) => {
        const again = await readOwner(paths);
        if (takenFromFolder(again, ident.pathKey!)) return this.remember(ident.pathKey!, ident.altId!);
        if (!again.recorded) {
          lock.assertHeld();
          await writeFileAtomic(
            ownerFile(paths),
            JSON.stringify({ pathKey: ident.pathKey, projectContext, claimedAt: new Date(this.clock.now()).toISOString() }) + '\n',
          );
        }
        return this.remember(ident.pathKey!, ident.id);
      },
      this.options.lock,
    );
  }

  private remember(pathKey: string, id: string): string {
    this.resolved.set(pathKey, id);
    return id;
  }

  async owner(project: string): Promise<KnowledgeOwner> {
    await this.options.format?.assertReadable();
    const { pathKey, identity } = await readOwner(knowledgePaths(this.layout, project));
    return { pathKey, identity };
  }

  async claimForIdentity(project: string, identity: string): Promise<KnowledgeOwner> {
    const paths = knowledgePaths(this.layout, project);
    const first = await readOwner(paths);
    if (first.pathKey !== null || first.identity !== null) return { pathKey: first.pathKey, identity: first.identity };
    await this.options.format?.assertWritable();
    return withFileLock(
      paths.dir,
      async (lock) => {
        const again = await readOwner(paths);
        if (again.pathKey !== null || again.identity !== null) return { pathKey: again.pathKey, identity: again.identity };
        lock.assertHeld();
        await writeFileAtomic(ownerFile(paths), JSON.stringify({ identity, claimedAt: new Date(this.clock.now()).toISOString() }) + '\n');
        return { pathKey: null, identity };
      },
      this.options.lock,
    );
  }

  async listProjects(): Promise<KnowledgeProjectInfo[]> {
    let ids: string[];
    try {
      ids = (await fs.readdir(this.layout.projectsDir)).filter((id) => PROJECT_ID.test(id)).sort();
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new StorageError(`cannot list ${this.layout.projectsDir}: ${(e as Error).message}`, { dir: this.layout.projectsDir }, { cause: e });
    }
    const out: KnowledgeProjectInfo[] = [];
    for (const project of ids) {
      const paths = knowledgePaths(this.layout, project);
      const graph = await statOrUndefined(paths.graph);
      const deleted = await statOrUndefined(paths.deleted);
      if (!graph && !deleted) continue;
      out.push({
        project,
        sizeBytes: graph?.size ?? 0,
        modifiedAt: new Date(Math.max(graph?.mtimeMs ?? 0, deleted?.mtimeMs ?? 0)).toISOString(),
        deletedSizeBytes: deleted?.size ?? 0,
        backups: (await this.listBackups(project)).length,
      });
    }
    return out;
  }

  async listBackups(project: string): Promise<KnowledgeBackupInfo[]> {
    return listBackupFiles(project, knowledgePaths(this.layout, project).backupDir);
  }

  /** `id` is `<project>/<backup file name>` or the path a delete answered (inside this data dir). */
  async readBackup(id: string): Promise<{ project: string; backup: KnowledgeBackupInfo; nodes: StoredKnowledgeNode[] }> {
    const { project, file } = this.parseBackupId(id);
    const backup = (await this.listBackups(project)).find((b) => b.file === file);
    if (!backup) throw new NotFoundError('knowledge backup', id, `knowledge backup '${id}' not found; workgraph knowledge backups PROJECT lists them`);
    const nodes: StoredKnowledgeNode[] = [];
    await readIo(backup.path, () =>
      forEachLine(backup.path, (text) => {
        const node = text === '' ? undefined : parseNode(text);
        if (node) nodes.push(node);
      }),
    );
    return { project, backup: { ...backup, nodes: nodes.length }, nodes };
  }

  private parseBackupId(id: string): { project: string; file: string } {
    const parts = path.isAbsolute(id) ? path.relative(this.layout.projectsDir, id).split(path.sep) : id.split('/');
    // Absolute: <project>/backup/<file> under the projects folder; otherwise <project>/<file>.
    const [project, file] = parts.length === 3 && parts[1] === 'backup' ? [parts[0]!, parts[2]!] : parts.length === 2 ? [parts[0]!, parts[1]!] : ['', ''];
    if (!PROJECT_ID.test(project) || !BACKUP_NAME.test(file)) {
      throw new NotFoundError('knowledge backup', id, `knowledge backup '${id}' not found: expected PROJECT/knowledge_graph_YYYYMMDD-HHMMSS.ndjson or a backup path inside ${this.layout.projectsDir}`);
    }
    return { project, file };
  }

  async exportProject(project: string): Promise<KnowledgeProjectExport | undefined> {
    await this.options.format?.assertReadable();
    const paths = knowledgePaths(this.layout, project);
    return exportNdjsonProject(project, paths, await readOwner(paths));
  }

  async importProject(data: KnowledgeProjectExport): Promise<{ nodes: number; deleted: number }> {
    return this.withLock(data.project, async (graph) => {
      const done = await importNdjsonProject(knowledgePaths(this.layout, data.project), data);
      await graph.openIndex();
      return done;
    });
  }

  async exportBackups(project: string): Promise<{ backups: KnowledgeBackupCopy[]; ignored: string[] }> {
    await this.options.format?.assertReadable();
    return readBackupFiles(knowledgePaths(this.layout, project).backupDir);
  }

  async importBackups(project: string, backups: readonly KnowledgeBackupCopy[]): Promise<void> {
    if (!backups.length) return;
    await this.withLock(project, () => writeBackupFiles(knowledgePaths(this.layout, project).backupDir, backups));
  }

  reader(project: string): KnowledgeReader {
    const paths = knowledgePaths(this.layout, project);
    // A stale index found by a lock-free search is repaired under the lock (by whoever holds it next, if not us).
    // Its segments loaded and checked too (a writer's openIndex checks only the manifest against the graph).
    return new NdjsonGraphReader(paths, this.searchIndex(project, paths), () => this.withLock(project, (g) => g.openIndex(true)));
  }

  /** Each project's search index tail held in memory by this store (another process, or another store, has its own). */
  private readonly tails = new Map<string, TailSlot>();

  private searchIndex(project: string, paths: KnowledgePaths): SearchIndexFiles {
    let slot = this.tails.get(project);
    if (!slot) this.tails.set(project, (slot = {}));
    return new SearchIndexFiles(paths.graph, paths.dir, this.projectLogger(project), slot, { ...DEFAULT_FLUSH, ...this.options.searchFlush });
  }

  /** The store's logger with the project on every entry: a log line about an index or a write names its project. */
  private projectLogger(project: string): Logger | undefined {
    return this.options.logger?.child({ project });
  }

  /**
   * Writes every search index tail this store holds as segments, each under its project's lock (a clean shutdown:
   * the next process then finds the index whole on disk instead of indexing the tail from the graph). A failure is
   * logged, never thrown: the tail is derived from the graph, which holds every node already.
   */
  async flushSearchIndexes(): Promise<void> {
    for (const [project, slot] of this.tails) {
      if (!slot.tail || slot.tail.bytes === 0) continue;
      const paths = knowledgePaths(this.layout, project);
      await withFileLock(paths.dir, (lock) => this.searchIndex(project, paths).flushTail(lock), this.options.lock).catch((e) => {
        this.projectLogger(project)?.warn('knowledge search index tail not written at shutdown; the next search indexes it from the graph', { graph: paths.graph, error: (e as Error).message });
      });
    }
  }

  /** The writer handed to `fn` is the file adapter's own (tests drive its two-file steps directly). */
  async withLock<T>(project: string, fn: (graph: NdjsonGraphWriter) => Promise<T>): Promise<T> {
    const paths = knowledgePaths(this.layout, project);
    await this.options.format?.assertWritable();
    const locked = () =>
      withFileLock(
        paths.dir,
        async (lock) => {
          const writer = new NdjsonGraphWriter(
            paths,
            lock,
            { clock: this.clock, backupMaxAgeDays: this.backupMaxAgeDays, backupMaxCount: this.backupMaxCount, logger: this.projectLogger(project) },
            this.searchIndex(project, paths),
          );
          // A delete or restore interrupted between its two files (exit, lost lock, full disk) is settled first; then
          // the search index is made the graph's (a crash between the graph write and the index write is repaired).
          await writer.repairInterrupted();
          await writer.openIndex();
          const out = await fn(writer);
          await writer.endRestore();
          this.options.changes?.publish({ kind: 'knowledge', project, id: project, at: new Date(this.clock.now()).toISOString() });
          return out;
        },
        this.options.lock,
      );
    return this.options.writes ? this.options.writes.track(locked()) : locked();
  }
}

/** Builds the NDJSON store (for the container, scripts and benchmarks). */
export function createNdjsonKnowledgeStore(dataDir: string, options: NdjsonKnowledgeStoreOptions = {}): NdjsonKnowledgeStore {
  return new NdjsonKnowledgeStore(dataDir, options);
}
