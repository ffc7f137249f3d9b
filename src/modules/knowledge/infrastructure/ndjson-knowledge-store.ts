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
import { projectIdentity } from '../domain/project-from-context';
import {
  isDeletedNodeRecord,
  isStoredKnowledgeNode,
  normalizeStoredNode,
  type DeletedNodeRecord,
  type StoredKnowledgeNode,
} from '../domain/knowledge-node';
import { StorageError } from '../../../kernel/errors';
import { appendAll, assertSize, commitTempFile, tempPathFor, writeAll, writeFileAtomic } from '../../../kernel/files/atomic-write';
import { withFileLock, type FileLockOptions, type HeldLock } from '../../../kernel/files/file-lock';
import { ProjectLayout } from '../../../kernel/files/project-layout';
import { errnoCode, toStorageError } from '../../../kernel/files/storage-errors';
import type { WritesInProgress } from '../../../kernel/writes-in-progress';
import type { DataFormatGate } from '../../../kernel/files/data-format';
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
  /** Project lock settings (defaults of withFileLock: stale 10 s, up to 30 s of waiting for another holder). */
  lock?: FileLockOptions;
  /** Where writes in progress are registered, so shutdown can wait for them. */
  writes?: WritesInProgress;
  /** The data dir's format gate: a newer format is refused, an older one migrated before the first write. */
  format?: DataFormatGate;
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
    if (owner.pathKey !== null && owner.pathKey !== ident.pathKey) return this.remember(ident.pathKey, ident.altId);
    if (owner.recorded) return this.remember(ident.pathKey, ident.id);
    if (!opts.claim) return ident.id;
    await this.options.format?.assertWritable();
    // Claim the plain id under its lock (two folders adding their first node at once get one owner).
    return withFileLock(
      paths.dir,
      async (lock) => {
        const again = await readOwner(paths);
        if (again.pathKey !== null && again.pathKey !== ident.pathKey) return this.remember(ident.pathKey!, ident.altId!);
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
    await this.options.format?.assertWritable();
    const locked = () =>
      withFileLock(
        paths.dir,
        async (lock) => {
          const writer = new NdjsonGraphWriter(paths, lock, {
            clock: this.clock,
            backupMaxAgeDays: this.backupMaxAgeDays,
            backupMaxCount: this.backupMaxCount,
          });
          // A delete or restore interrupted between its two files (exit, lost lock, full disk) is settled first.
          await writer.repairInterrupted();
          return fn(writer);
        },
        this.options.lock,
      );
    return this.options.writes ? this.options.writes.track(locked()) : locked();
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

/**
 * The id of a line written by the store (`{"id":"...",` first), read without parsing; undefined for any other shape
 * (hand-written lines, escapes in the id), which callers then parse.
 */
function leadingId(text: string): string | undefined {
  if (!text.startsWith('{"id":"')) return undefined;
  const end = text.indexOf('"', 7);
  if (end < 0) return undefined;
  const id = text.slice(7, end);
  return id.includes('\\') || text.charCodeAt(end + 1) !== 44 /* , */ ? undefined : id;
}

const ID_PREFIX = Buffer.from('{"id":"');

/** False only for a line that starts with the id of a node not in `ids` (the common case, decided on the bytes). */
function wantedLeadingId(raw: Buffer, ids: ReadonlySet<string>): boolean {
  // Plain loops: a native call per line (compare, indexOf) costs more than these few bytes.
  const start = ID_PREFIX.length;
  if (raw.length < start) return true;
  for (let i = 0; i < start; i++) if (raw[i] !== ID_PREFIX[i]) return true;
  let end = start;
  while (end < raw.length && raw[end] !== 0x22 /* " */) end++;
  if (end >= raw.length || raw[end + 1] !== 0x2c /* , */) return true;
  // Only the id is decoded (a backslash means an escape: let the full line decide).
  const id = raw.toString('utf8', ID_PREFIX.length, end);
  return id.includes('\\') || ids.has(id);
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
    const { lines } = await readIo(this.paths.graph, () => forEachLine(
      this.paths.graph,
      (text, offset, lineNo) => {
        if (text === '' || !mentionsAny(text, opts.mentioning)) return;
        const node = parseNode(text);
        if (node) visit(node);
        else malformed.add(lineNo, offset, text);
      },
      { signal: opts.signal },
    ));
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
    const { source, stoppedAt } = await readIo(this.paths.graph, () => forEachLineBackward(
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
    ));
    const more = stoppedAt !== null && stoppedAt > 0;
    return { nodes, nextCursor: more ? encodeCursor(source.ino, stoppedAt) : null, malformedCount };
  }

  async findByIds(ids: ReadonlySet<string>, signal?: AbortSignal): Promise<Map<string, StoredKnowledgeNode>> {
    const found = new Map<string, StoredKnowledgeNode>();
    if (ids.size === 0) return found;
    await readIo(this.paths.graph, () => forEachLineBackward(
      this.paths.graph,
      (text) => {
        const id = leadingId(text);
        if (id !== undefined ? ids.has(id) : mentionsAny(text, ids)) {
          const node = parseNode(text);
          if (node && ids.has(node.id) && !found.has(node.id)) found.set(node.id, node);
        }
        return found.size < ids.size;
      },
      // Lines as the store writes them start with their id: one whose id is not wanted is skipped undecoded (checking
      // new ids for uniqueness reads the whole file; a string per line made the server's RSS grow with the graph).
      { signal, prefilter: (raw) => wantedLeadingId(raw, ids) },
    ));
    return found;
  }

  async scanDeleted(visit: (record: DeletedNodeRecord) => void, signal?: AbortSignal): Promise<PassReport> {
    const malformed = new MalformedCollector();
    const { lines } = await readIo(this.paths.deleted, () => forEachLine(
      this.paths.deleted,
      (text, offset, lineNo) => {
        if (text === '') return;
        const record = parseRecord(text);
        if (record) visit(record);
        else malformed.add(lineNo, offset, text);
      },
      { signal },
    ));
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
        if (!node) return MALFORMED;
        const out = transform(node);
        if (out === undefined) return KEEP;
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
        if (!record) return MALFORMED;
        if (nodeIds.has(record.nodeId)) {
          removed++;
          return null;
        }
        return KEEP;
      },
      () => removed > 0,
    );
    return { removed };
  }

  /**
   * One all-or-nothing append per call (see appendAll: every byte written or the file cut back to its old length),
   * then fsync. Lines of concurrent writers never interleave: we hold the lock. A torn last line (a crash mid-write)
   * stays a malformed line of its own instead of swallowing ours.
   */
  private async appendLines(file: string, lines: string[]): Promise<void> {
    this.lock.assertHeld();
    await appendAll(file, lines.join('\n') + '\n', { ensureNewline: true });
  }

  /** The marker of a change spanning the graph and the deleted file (see {@link KnowledgeGraphWriter.beginTwoFileChange}). */
  private get pendingFile(): string {
    return path.join(this.paths.dir, PENDING_FILE);
  }

  async beginTwoFileChange(op: 'delete' | 'restore', nodeIds: readonly string[]): Promise<void> {
    this.lock.assertHeld();
    await writeFileAtomic(this.pendingFile, JSON.stringify({ op, nodeIds, pid: process.pid, startedAt: new Date(this.settings.clock.now()).toISOString() }) + '\n');
  }

  async endTwoFileChange(): Promise<void> {
    await fs.rm(this.pendingFile, { force: true }).catch((e) => {
      throw toStorageError(e, 'remove', this.pendingFile);
    });
  }

  /**
   * Settles a delete or restore that was interrupted between its two files: a node that is in the graph has no
   * deletion record (the delete never completed, or the restore did). Runs under the lock, only when the marker is
   * there, so it costs nothing otherwise. Without a readable marker every deletion record is checked.
   * @returns the ids whose leftover records were removed.
   */
  async repairInterrupted(): Promise<string[]> {
    let text: string;
    try {
      text = await fs.readFile(this.pendingFile, 'utf8');
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return [];
      throw toStorageError(e, 'read', this.pendingFile);
    }
    let ids: Set<string> | undefined;
    try {
      const marker = JSON.parse(text) as { nodeIds?: unknown };
      if (Array.isArray(marker.nodeIds)) ids = new Set(marker.nodeIds.filter((x): x is string => typeof x === 'string'));
    } catch {
      ids = undefined;
    }
    if (!ids) {
      ids = new Set();
      const all = ids;
      await this.scanDeleted((r) => all.add(r.nodeId));
    }
    const present = await this.findByIds(ids);
    const orphans = new Set<string>();
    if (present.size) await this.scanDeleted((r) => present.has(r.nodeId) && orphans.add(r.nodeId));
    if (orphans.size) await this.removeDeleted(orphans);
    await this.endTwoFileChange();
    return [...orphans];
  }

  /**
   * Streams `file` line by line through `map` into a temp file in the same folder, then (when `changed()`) fsyncs,
   * checks the temp file holds every byte written, and renames it over `file`. `map` returns the line to write, null
   * to drop it, KEEP to keep it byte for byte, or MALFORMED to keep it byte for byte and report it (invalid UTF-8
   * included). Leftover temp files of crashed rebuilds are removed first (no one else rebuilds: we hold the lock).
   * Any failure leaves `file` as it was and is a StorageError naming it.
   */
  private async rewriteFile(
    file: string,
    map: (text: string) => string | null | typeof KEEP | typeof MALFORMED,
    changed: () => boolean,
    signal?: AbortSignal,
  ): Promise<RebuildReport> {
    this.lock.assertHeld();
    await removeLeftoverTemps(path.dirname(file), path.basename(file));
    const tmp = tempPathFor(file);
    let out: fs.FileHandle;
    try {
      out = await fs.open(tmp, 'w', 0o644);
    } catch (e) {
      throw toStorageError(e, 'rewrite', file);
    }
    const malformed = new MalformedCollector();
    let pending: Buffer[] = [];
    let pendingLen = 0;
    let written = 0;
    let closed = false;
    const push = (b: Buffer) => {
      pending.push(b, NEWLINE);
      pendingLen += b.length + 1;
    };
    try {
      const { lines } = await forEachLine(
        file,
        (text, offset, lineNo, _terminated, raw) => {
          if (text === '') return;
          const mapped = map(text);
          if (mapped === MALFORMED) {
            malformed.add(lineNo, offset, text);
            push(raw);
          } else if (mapped === KEEP) push(raw);
          else if (mapped !== null) push(Buffer.from(mapped, 'utf8'));
        },
        {
          signal,
          afterChunk: async () => {
            if (pendingLen === 0) return;
            const data = Buffer.concat(pending, pendingLen);
            pending = [];
            pendingLen = 0;
            written += await writeAll(out, data, written);
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
      await assertSize(out, written, file);
      await out.close();
      closed = true;
      this.lock.assertHeld();
      await commitTempFile(tmp, file);
      return { ...report, dropped: 0, rewritten: 0, committed: true };
    } catch (e) {
      if (!closed) await out.close().catch(() => undefined);
      await fs.rm(tmp, { force: true }).catch(() => undefined);
      throw toStorageError(e, 'rewrite', file);
    }
  }
}

/** The file recording which folder owns a project's plain id: `<project>/knowledge_graph.owner.json`. */
export const OWNER_FILE = 'knowledge_graph.owner.json';

function ownerFile(paths: KnowledgePaths): string {
  return path.join(paths.dir, OWNER_FILE);
}

/**
 * Who owns a project's plain id: the owner file when there is one (`recorded`), else — data written before owner
 * files existed — the folder of the newest node whose `projectContext` is a path (null when there is none: a new
 * project, or one only ever named by a bare name, which any folder of that name may take).
 */
export async function readOwner(paths: KnowledgePaths): Promise<{ pathKey: string | null; recorded: boolean }> {
  const file = ownerFile(paths);
  let text: string | undefined;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw toStorageError(e, 'read', file);
  }
  if (text !== undefined) {
    let pathKey: unknown;
    try {
      pathKey = (JSON.parse(text) as { pathKey?: unknown }).pathKey;
    } catch {
      pathKey = undefined;
    }
    if (typeof pathKey !== 'string') {
      throw new StorageError(`${file} is not a valid owner file (expected {"pathKey": "<folder>"}); fix or remove it`, { file });
    }
    return { pathKey, recorded: true };
  }
  let found: string | null = null;
  await readIo(paths.graph, () =>
    forEachLineBackward(paths.graph, (line) => {
      const node = parseNode(line);
      if (!node || typeof node.projectContext !== 'string') return true;
      found = projectIdentity(node.projectContext).pathKey;
      return false;
    }),
  );
  return { pathKey: found, recorded: false };
}

/** Markers of {@link NdjsonGraphWriter.rewriteFile}'s map: keep the line's bytes as they are (and report it). */
const KEEP = Symbol('keep');
const MALFORMED = Symbol('malformed');
const NEWLINE = Buffer.from('\n');

/** The marker of a delete or restore in progress (both files change): `<project>/knowledge_graph.pending.json`. */
export const PENDING_FILE = 'knowledge_graph.pending.json';

/** Runs a read pass, turning I/O failures (EACCES, EISDIR, EIO) into a StorageError naming the file. */
async function readIo<T>(file: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toStorageError(e, 'read', file);
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
