import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Clock } from '../../../kernel/clock';
import { systemClock } from '../../../kernel/clock';
import {
  MALFORMED_REPORT_MAX,
  type KnowledgeGraphReader,
  type KnowledgeBackupInfo,
  type KnowledgeGraphWriter,
  type KnowledgeProjectInfo,
  type KnowledgeStore,
  type MalformedLine,
  type NewestFirstPage,
  type PassReport,
  type RebuildReport,
  type RebuildTransform,
  type ScanOptions,
} from '../application/ports/knowledge-store';
import {
  isDeletedNodeRecord,
  isStoredKnowledgeNode,
  normalizeStoredNode,
  type DeletedNodeRecord,
  type StoredKnowledgeNode,
} from '../domain/knowledge-node';
import { StorageError } from '../../../kernel/errors';
import { commitTempFile, tempPathFor } from '../../../kernel/files/atomic-write';
import { withFileLock, type FileLockOptions, type HeldLock } from '../../../kernel/files/file-lock';
import { ProjectLayout } from '../../../kernel/files/project-layout';
import { createBackup, pruneBackups } from './backup-files';
import { knowledgePaths, type KnowledgePaths } from './knowledge-files';
import { forEachLine, forEachLineBackward } from './line-reader';
import { decodeCursor, encodeCursor, staleCursorError } from './page-cursor';

export interface NdjsonKnowledgeStoreOptions {
  /** Time source for backup names. Default: the system clock. */
  clock?: Clock;
  /** Backups older than this are pruned after each new backup. Default 90. */
  backupMaxAgeDays?: number;
  /** At most this many backups are kept. Default 50. */
  backupMaxCount?: number;
  /** Project lock settings (defaults of withFileLock: stale 10 s, ≈30 s of retries). */
  lock?: FileLockOptions;
}

/** Beyond this many ids the substring prefilter costs more than it saves: every line is parsed instead. */
const PREFILTER_MAX_IDS = 64;
const EXCERPT_CHARS = 80;

/**
 * The knowledge store on NDJSON files, one folder per project (`<data-dir>/projects/<id>/`): the graph
 * (`knowledge_graph.ndjson`, append-only for adds), the deleted records (`knowledge_graph.deleted.ndjson`) and
 * `backup/`. Every write holds the project's proper-lockfile lock; reads stream and take no lock.
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

  graphFile(project: string): string {
    return knowledgePaths(this.layout, project).graph;
  }

  async listProjects(): Promise<KnowledgeProjectInfo[]> {
    let ids: string[];
    try {
      ids = (await fs.readdir(this.layout.projectsDir)).filter((id) => /^[a-z0-9][a-z0-9-]*$/.test(id)).sort();
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
    const dir = knowledgePaths(this.layout, project).backupDir;
    let names: string[];
    try {
      names = (await fs.readdir(dir)).filter((n) => n.startsWith('knowledge_graph_') && n.endsWith('.ndjson'));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new StorageError(`cannot list ${dir}: ${(e as Error).message}`, { dir }, { cause: e });
    }
    const out: KnowledgeBackupInfo[] = [];
    for (const file of names) {
      const st = await statOrUndefined(path.join(dir, file));
      if (st) out.push({ file, sizeBytes: st.size, modifiedAt: st.mtime.toISOString() });
    }
    // Names carry the UTC time (and -N for the same second), so name order is time order.
    return out.sort((a, b) => (a.file < b.file ? 1 : a.file > b.file ? -1 : 0));
  }

  reader(project: string): KnowledgeGraphReader {
    return new NdjsonGraphReader(knowledgePaths(this.layout, project));
  }

  async withLock<T>(project: string, fn: (graph: KnowledgeGraphWriter) => Promise<T>): Promise<T> {
    const paths = knowledgePaths(this.layout, project);
    return withFileLock(
      paths.dir,
      (lock) =>
        fn(
          new NdjsonGraphWriter(paths, lock, {
            clock: this.clock,
            backupMaxAgeDays: this.backupMaxAgeDays,
            backupMaxCount: this.backupMaxCount,
          }),
        ),
      this.options.lock,
    );
  }
}

async function statOrUndefined(file: string): Promise<import('node:fs').Stats | undefined> {
  try {
    return await fs.stat(file);
  } catch {
    return undefined;
  }
}

/** Builds the NDJSON store (for the container, scripts and benchmarks). */
export function createNdjsonKnowledgeStore(dataDir: string, options: NdjsonKnowledgeStoreOptions = {}): NdjsonKnowledgeStore {
  return new NdjsonKnowledgeStore(dataDir, options);
}

class MalformedCollector {
  count = 0;
  readonly list: MalformedLine[] = [];
  add(line: number, offset: number, text: string): void {
    this.count++;
    if (this.list.length < MALFORMED_REPORT_MAX) this.list.push({ line, offset, excerpt: text.slice(0, EXCERPT_CHARS) });
  }
  report(lines: number): PassReport {
    return { lines, malformedCount: this.count, malformed: this.list };
  }
}

function parseNode(text: string): StoredKnowledgeNode | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isStoredKnowledgeNode(value) ? normalizeStoredNode(value) : undefined;
}

function mentionsAny(text: string, ids: ReadonlySet<string> | undefined): boolean {
  if (!ids || ids.size > PREFILTER_MAX_IDS) return true;
  for (const id of ids) if (text.includes(id)) return true;
  return false;
}

class NdjsonGraphReader implements KnowledgeGraphReader {
  constructor(protected readonly paths: KnowledgePaths) {}

  async scan(visit: (node: StoredKnowledgeNode) => void, opts: ScanOptions = {}): Promise<PassReport> {
    const malformed = new MalformedCollector();
    const { lines } = await forEachLine(
      this.paths.graph,
      (text, offset, lineNo) => {
        if (text === '' || !mentionsAny(text, opts.mentioning)) return;
        const node = parseNode(text);
        if (node) visit(node);
        else malformed.add(lineNo, offset, text);
      },
      { signal: opts.signal },
    );
    return malformed.report(lines);
  }

  async pageNewestFirst(opts: {
    cursor?: string;
    limit: number;
    accept?: (node: StoredKnowledgeNode) => boolean;
    signal?: AbortSignal;
  }): Promise<NewestFirstPage> {
    const from = opts.cursor !== undefined ? decodeCursor(opts.cursor) : undefined;
    const nodes: StoredKnowledgeNode[] = [];
    let malformedCount = 0;
    const { source, stoppedAt } = await forEachLineBackward(
      this.paths.graph,
      (text) => {
        const node = parseNode(text);
        if (!node) malformedCount++;
        else if (!opts.accept || opts.accept(node)) nodes.push(node);
        return nodes.length < opts.limit;
      },
      {
        from: from?.offset,
        signal: opts.signal,
        check: async (src, readByte) => {
          if (!from) return;
          // Same file (not replaced by a rebuild), offset inside it and at a line start.
          if (src.ino !== from.ino || from.offset > src.size) throw staleCursorError();
          if (from.offset > 0 && (await readByte(from.offset - 1)) !== 10) throw staleCursorError();
        },
      },
    );
    const more = stoppedAt !== null && stoppedAt > 0;
    return { nodes, nextCursor: more ? encodeCursor(source.ino, stoppedAt) : null, malformedCount };
  }

  async findByIds(ids: ReadonlySet<string>, signal?: AbortSignal): Promise<Map<string, StoredKnowledgeNode>> {
    const found = new Map<string, StoredKnowledgeNode>();
    if (ids.size === 0) return found;
    await forEachLineBackward(
      this.paths.graph,
      (text) => {
        if (mentionsAny(text, ids)) {
          const node = parseNode(text);
          if (node && ids.has(node.id) && !found.has(node.id)) found.set(node.id, node);
        }
        return found.size < ids.size;
      },
      { signal },
    );
    return found;
  }

  async scanDeleted(visit: (record: DeletedNodeRecord) => void, signal?: AbortSignal): Promise<PassReport> {
    const malformed = new MalformedCollector();
    const { lines } = await forEachLine(
      this.paths.deleted,
      (text, offset, lineNo) => {
        if (text === '') return;
        const record = parseRecord(text);
        if (record) visit(record);
        else malformed.add(lineNo, offset, text);
      },
      { signal },
    );
    return malformed.report(lines);
  }
}

function parseRecord(text: string): DeletedNodeRecord | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (!isDeletedNodeRecord(value)) return undefined;
    normalizeStoredNode(value.nodeData);
    return value;
  } catch {
    return undefined;
  }
}

interface WriterSettings {
  clock: Clock;
  backupMaxAgeDays: number;
  backupMaxCount: number;
}

class NdjsonGraphWriter extends NdjsonGraphReader implements KnowledgeGraphWriter {
  constructor(
    paths: KnowledgePaths,
    private readonly lock: HeldLock,
    private readonly settings: WriterSettings,
  ) {
    super(paths);
  }

  async append(nodes: readonly StoredKnowledgeNode[]): Promise<void> {
    if (nodes.length === 0) return;
    await this.appendLines(this.paths.graph, nodes.map((n) => JSON.stringify(n)));
  }

  async appendDeleted(records: readonly DeletedNodeRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.appendLines(this.paths.deleted, records.map((r) => JSON.stringify(r)));
  }

  async backup(): Promise<{ path: string; pruned: string[] }> {
    this.lock.assertHeld();
    const now = this.settings.clock.now();
    const file = await createBackup(this.paths.graph, this.paths.backupDir, now);
    const pruned = await pruneBackups(this.paths.backupDir, {
      nowMs: now,
      maxAgeDays: this.settings.backupMaxAgeDays,
      maxCount: this.settings.backupMaxCount,
      keep: file,
    });
    return { path: file, pruned };
  }

  async rebuild(transform: RebuildTransform, signal?: AbortSignal): Promise<RebuildReport> {
    let dropped = 0;
    let rewritten = 0;
    const result = await this.rewriteFile(
      this.paths.graph,
      (text) => {
        const node = parseNode(text);
        if (!node) return 'malformed';
        const out = transform(node);
        if (out === undefined) return text;
        if (out === null) {
          dropped++;
          return null;
        }
        rewritten++;
        return JSON.stringify(out);
      },
      () => dropped + rewritten > 0,
      signal,
    );
    return { ...result, dropped, rewritten };
  }

  async removeDeleted(nodeIds: ReadonlySet<string>): Promise<{ removed: number }> {
    let removed = 0;
    await this.rewriteFile(
      this.paths.deleted,
      (text) => {
        const record = parseRecord(text);
        if (!record) return 'malformed';
        if (nodeIds.has(record.nodeId)) {
          removed++;
          return null;
        }
        return text;
      },
      () => removed > 0,
    );
    return { removed };
  }

  /** One write call per append (lines of concurrent writers never interleave: we hold the lock), then fsync. */
  private async appendLines(file: string, lines: string[]): Promise<void> {
    this.lock.assertHeld();
    const handle = await fs.open(file, 'a+', 0o644);
    try {
      const { size } = await handle.stat();
      let prefix = '';
      if (size > 0) {
        // A torn last line (a crash mid-write) stays a malformed line of its own instead of swallowing ours.
        const last = Buffer.alloc(1);
        await handle.read(last, 0, 1, size - 1);
        if (last[0] !== 10) prefix = '\n';
      }
      await handle.write(prefix + lines.join('\n') + '\n');
      await handle.sync();
    } catch (e) {
      throw new StorageError(`could not append to ${file}: ${(e as Error).message}`, { file }, { cause: e });
    } finally {
      await handle.close();
    }
  }

  /**
   * Streams `file` line by line through `map` into a temp file in the same folder, then (when `changed()`) fsyncs and
   * renames it over `file`. `map` returns the line to write, null to drop it, or 'malformed' to keep it as it is and
   * report it. Leftover temp files of crashed rebuilds are removed first (no one else rebuilds: we hold the lock).
   */
  private async rewriteFile(
    file: string,
    map: (text: string) => string | null | 'malformed',
    changed: () => boolean,
    signal?: AbortSignal,
  ): Promise<RebuildReport> {
    this.lock.assertHeld();
    await removeLeftoverTemps(path.dirname(file), path.basename(file));
    const tmp = tempPathFor(file);
    const out = await fs.open(tmp, 'w', 0o644);
    const malformed = new MalformedCollector();
    let pending: string[] = [];
    let closed = false;
    try {
      const { lines } = await forEachLine(
        file,
        (text, offset, lineNo) => {
          if (text === '') return;
          const mapped = map(text);
          if (mapped === 'malformed') {
            malformed.add(lineNo, offset, text);
            pending.push(text);
          } else if (mapped !== null) pending.push(mapped);
        },
        {
          signal,
          afterChunk: async () => {
            if (pending.length === 0) return;
            const data = pending.join('\n') + '\n';
            pending = [];
            await out.write(data);
          },
        },
      );
      const report = malformed.report(lines);
      if (!changed()) {
        await out.close();
        closed = true;
        await fs.rm(tmp, { force: true });
        return { ...report, dropped: 0, rewritten: 0, committed: false };
      }
      await out.sync();
      await out.close();
      closed = true;
      this.lock.assertHeld();
      await commitTempFile(tmp, file);
      return { ...report, dropped: 0, rewritten: 0, committed: true };
    } catch (e) {
      if (!closed) await out.close().catch(() => undefined);
      await fs.rm(tmp, { force: true });
      throw e;
    }
  }
}

/** Removes `.<name>.tmp-*` files left by a rebuild that crashed (see tempPathFor). */
async function removeLeftoverTemps(dir: string, name: string): Promise<void> {
  let entries: string[];
  try {
    entries = await fs.readdir(dir);
  } catch {
    return;
  }
  const prefix = `.${name}.tmp-`;
  await Promise.all(entries.filter((e) => e.startsWith(prefix)).map((e) => fs.rm(path.join(dir, e), { force: true })));
}
