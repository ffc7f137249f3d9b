import type { DeletedNodeRecord, StoredKnowledgeNode } from '../../domain/knowledge-node';

/**
 * Storage of per-project knowledge graphs, shaped for graphs far larger than memory: every read is a streaming pass
 * (forward, or newest-first from the end of the file), and a caller keeps only what it needs — the ids being deleted,
 * their dependents, the affected summaries.
 *
 * Reads take no lock (each pass sees one consistent file: a rebuild replaces the file by rename). Every write runs
 * inside {@link KnowledgeStore.withLock}, which holds the project's cross-process lock and re-reads the file there.
 */
export interface KnowledgeStore {
  /**
   * The project id of a `projectContext` (see projectIdentity): a bare name → its slug; a path → the plain slug when
   * no other folder owns it, else the slug plus a hash of the path. `claim` (adds) records this folder as the owner of
   * the plain id when no one does yet, under that project's lock.
   */
  resolveProject(projectContext: string, opts?: { claim?: boolean }): Promise<string>;
  /** Lock-free reads of one project (`project` is a safe project id). */
  reader(project: string): KnowledgeGraphReader;
  /**
   * Runs `fn` holding the project's cross-process lock; the writer's reads see every write committed before.
   * @throws LockError when the lock cannot be taken in time or is compromised while held.
   */
  withLock<T>(project: string, fn: (graph: KnowledgeGraphWriter) => Promise<T>): Promise<T>;
  /** The graph file of a project (for messages and logs). */
  graphFile(project: string): string;
  /** The projects that have a knowledge graph (or deleted records), sorted by id. */
  listProjects(): Promise<KnowledgeProjectInfo[]>;
  /** A project's backups, newest first. */
  listBackups(project: string): Promise<KnowledgeBackupInfo[]>;
}

export interface KnowledgeProjectInfo {
  project: string;
  sizeBytes: number;
  /** ISO time the graph last changed. */
  modifiedAt: string;
  deletedSizeBytes: number;
  backups: number;
}

export interface KnowledgeBackupInfo {
  /** File name inside the project's backup folder. */
  file: string;
  sizeBytes: number;
  modifiedAt: string;
}

/** A line of a graph or deleted file that is not a valid node/record: kept in the file as it is, and reported. */
export interface MalformedLine {
  /** 1-based line number in the file at the time of the pass (0 when read newest-first, where it is unknown). */
  line: number;
  /** Byte offset of the line's start. */
  offset: number;
  /** The first characters of the line. */
  excerpt: string;
}

/** What a pass saw besides the nodes. At most {@link MALFORMED_REPORT_MAX} malformed lines are listed; all are counted. */
export interface PassReport {
  lines: number;
  malformedCount: number;
  malformed: MalformedLine[];
}

export const MALFORMED_REPORT_MAX = 20;

export interface ScanOptions {
  /**
   * Cheap prefilter: only lines that contain one of these ids as a substring are parsed and visited (a line that
   * names none of them cannot matter to the caller). A live set — it may grow while the pass runs. With more than
   * a few dozen ids the store parses every line instead. Malformed lines are only detected among lines parsed.
   */
  mentioning?: ReadonlySet<string>;
  signal?: AbortSignal;
}

export interface NewestFirstPage {
  nodes: StoredKnowledgeNode[];
  /** Opaque token for the next (older) page, or null at the start of the file. */
  nextCursor: string | null;
  malformedCount: number;
}

export interface KnowledgeGraphReader {
  /** One forward pass over the graph file (oldest first). A missing file is an empty graph. */
  scan(visit: (node: StoredKnowledgeNode) => void, opts?: ScanOptions): Promise<PassReport>;
  /**
   * Reads from `cursor` (default: the end of the file) towards the start, newest first, until `limit` nodes were
   * accepted; cost is proportional to the lines read, not the file size.
   * @throws InvalidArgumentsError for a cursor that is not one of ours or no longer fits the file (rebuilt since).
   */
  pageNewestFirst(opts: {
    cursor?: string;
    limit: number;
    accept?: (node: StoredKnowledgeNode) => boolean;
    signal?: AbortSignal;
  }): Promise<NewestFirstPage>;
  /** The nodes with these ids, read newest first, stopping as soon as all are found. */
  findByIds(ids: ReadonlySet<string>, signal?: AbortSignal): Promise<Map<string, StoredKnowledgeNode>>;
  /** One forward pass over the deleted file. */
  scanDeleted(visit: (record: DeletedNodeRecord) => void, signal?: AbortSignal): Promise<PassReport>;
}

/**
 * What a rebuild does with one node: `undefined` keeps its line byte for byte, `null` drops it, a node replaces it.
 */
export type RebuildTransform = (node: StoredKnowledgeNode) => StoredKnowledgeNode | null | undefined;

export interface RebuildReport extends PassReport {
  dropped: number;
  rewritten: number;
  /** False when nothing changed (the file was left untouched). */
  committed: boolean;
}

/** Writes, available only while holding the project lock. */
export interface KnowledgeGraphWriter extends KnowledgeGraphReader {
  /** Appends nodes as lines (one write, fsynced). Starts on a fresh line even after a torn last line. */
  append(nodes: readonly StoredKnowledgeNode[]): Promise<void>;
  /**
   * Copies the graph to `backup/knowledge_graph_YYYYMMDD-HHMMSS.ndjson` (UTC; `-1`, `-2`, ... when that name is
   * taken), then prunes backups older than the configured age or beyond the configured count.
   * @returns the backup's path and the backups pruned.
   */
  backup(): Promise<{ path: string; pruned: string[] }>;
  /** Appends deletion records to the deleted file (one write, fsynced). */
  appendDeleted(records: readonly DeletedNodeRecord[]): Promise<void>;
  /**
   * Streams the graph line by line through `transform` into a temp file in the same folder, fsyncs it and renames it
   * over the graph (then fsyncs the folder): a crash at any moment leaves the old file or the new one. Malformed
   * lines are kept as they are and reported.
   */
  rebuild(transform: RebuildTransform, signal?: AbortSignal): Promise<RebuildReport>;
  /** Rewrites the deleted file without the records of these node ids (same atomic streaming rewrite). */
  removeDeleted(nodeIds: ReadonlySet<string>): Promise<{ removed: number }>;
  /**
   * Records (durably) that a change of both files — graph and deleted records — is starting for these ids. Until
   * {@link endTwoFileChange}, an interruption (exit, lost lock, full disk) is settled under the lock before the next
   * write: a node still in the graph loses its deletion record (a delete that never completed is undone; a restore
   * that appended the node is completed), so no node is ever both in the graph and deleted.
   */
  beginTwoFileChange(op: 'delete' | 'restore', nodeIds: readonly string[]): Promise<void>;
  /** The two-file change finished (or was fully undone): drops the marker. */
  endTwoFileChange(): Promise<void>;
}
