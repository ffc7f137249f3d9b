import type { DeletedNodeRecord, KnowledgeRole, StoredKnowledgeNode } from '../../domain/knowledge-node';
import type { SearchQuery } from '../../domain/search';

/**
 * Storage of per-project knowledge graphs, spoken in queries: a page newest first, nodes by id, the dependents of a
 * set, soft delete with a backup, restore. How an adapter answers them is its own business — the NDJSON files stream
 * through the graph (docs/knowledge-graph.md), PostgreSQL uses indexes — and the same contract suite
 * (tests/contracts/knowledge-store.contract.ts) holds both to the same answers.
 *
 * Reads ({@link KnowledgeStore.reader}) take no lock and see committed data. Every write runs inside
 * {@link KnowledgeStore.withLock}, which holds the project's lock (a file lock, a database row lock) for `fn`: what
 * the writer reads there is current and stays so until `fn` ends.
 */
export interface KnowledgeStore {
  /**
   * The project id of a `projectContext` (see projectIdentity): a bare name → its slug; a path → the plain slug when
   * no other folder (nor an identity, see owner) owns it, else the slug plus a hash of the path. `claim` (adds) records
   * this folder as the owner of the plain id when no one does yet, under that project's lock. Who may reach which
   * project is the application's business (services/knowledge-reach.ts).
   */
  resolveProject(projectContext: string, opts?: { claim?: boolean }): Promise<string>;
  /** Lock-free queries of one project (`project` is a safe project id). */
  reader(project: string): KnowledgeReader;
  /**
   * Runs `fn` holding the project's lock; the writer's queries see every write committed before.
   * @throws LockError when the lock cannot be taken in time or is compromised while held.
   */
  withLock<T>(project: string, fn: (graph: KnowledgeWriter) => Promise<T>): Promise<T>;
  /** Where a project's graph lives, for messages and logs (a file path, a database table). */
  location(project: string): string;
  /**
   * Who owns a project (docs/http.md "What an identity sees"): the folder (its normalized path key) that owns its plain
   * id, or — a project named by a bare name — the identity that created it; both null when none is known (a new
   * project, or a bare-name project made before owners were recorded, which the first identity to write claims).
   */
  owner(project: string): Promise<KnowledgeOwner>;
  /**
   * Records `identity` as the owner of a bare-name project unless an owner (a folder or an identity) is already
   * known, atomically on any host (the first writer wins); returns the owner as it is afterwards.
   */
  claimForIdentity(project: string, identity: string): Promise<KnowledgeOwner>;
  /** The projects that have a knowledge graph (or deleted records), sorted by id. */
  listProjects(): Promise<KnowledgeProjectInfo[]>;
  /** A project's backups, newest first. */
  listBackups(project: string): Promise<KnowledgeBackupInfo[]>;
  /**
   * The nodes a backup holds (files: the whole graph as it was before a delete; PostgreSQL: the rows that delete
   * removed), to bring back what is missing. `id` is a {@link KnowledgeBackupInfo.id} or the `backupPath` a delete
   * answered.
   * @throws NotFoundError for an id that names no backup.
   */
  readBackup(id: string): Promise<{ project: string; backup: KnowledgeBackupInfo; nodes: StoredKnowledgeNode[] }>;
  /** Everything a project holds, for copying it to another store (`db import`/`db export`); undefined: no graph. */
  exportProject(project: string): Promise<KnowledgeProjectExport | undefined>;
  /**
   * Replaces a project's nodes and deletion records with `data`'s, all or nothing, every field (timestamps included)
   * exactly as given; its backups stay. Returns what was written.
   */
  importProject(data: KnowledgeProjectExport): Promise<{ nodes: number; deleted: number }>;
  /**
   * Every backup of a project with the nodes it holds, oldest first, for copying it to another store. `ignored` names
   * what sits among the backups without being one (files not named like a backup), so a copy can say so.
   * @throws StorageError naming the backup (and the line) when one cannot be read as nodes: nothing is half-copied.
   */
  exportBackups(project: string): Promise<{ backups: KnowledgeBackupCopy[]; ignored: string[] }>;
  /**
   * Writes backups copied from another store, all or nothing, each under its {@link KnowledgeBackupCopy.name} with its
   * time exactly (listBackups then answers that time); a backup of the same name is replaced. No pruning.
   */
  importBackups(project: string, backups: readonly KnowledgeBackupCopy[]): Promise<void>;
}

/** Who owns a knowledge project: a folder, an identity (bare-name projects), or nobody yet (both null). */
export interface KnowledgeOwner {
  pathKey: string | null;
  identity: string | null;
}

/** A backup as `db import`/`db export` carry it between stores. */
export interface KnowledgeBackupCopy {
  /**
   * Its name in a data dir (`knowledge_graph_YYYYMMDD-HHMMSS[-N].ndjson`), which identifies it across stores: a file
   * backup's file name, the name a database backup was imported under, or one made from a database backup's time.
   */
  name: string;
  /** ISO time it was taken (what listBackups answers as `modifiedAt`). */
  takenAt: string;
  /** The nodes it holds, in its order. */
  nodes: StoredKnowledgeNode[];
}

export interface KnowledgeProjectExport {
  project: string;
  /** The folder that owns the project's plain id (see resolveProject), when one is known. */
  ownerPathKey: string | null;
  /** The identity that owns a bare-name project (see KnowledgeStore.owner), when one is known. */
  ownerIdentity: string | null;
  /** Deletion records, oldest first. */
  deleted: DeletedNodeRecord[];
  /** Streams the nodes oldest first (the order newest-first pages reverse), in batches; may be called again. */
  forEachBatch(fn: (nodes: StoredKnowledgeNode[]) => Promise<void>): Promise<void>;
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
  /** Stable id for `workgraph knowledge restore-backup ID`: `<project>/<name>`. */
  id: string;
  /** The backup's name inside the project (a file name for the files). */
  file: string;
  /** What a delete's `backupPath` answered for it. */
  path: string;
  sizeBytes: number;
  modifiedAt: string;
  /** Nodes the backup holds, when the store knows it without reading the backup. */
  nodes?: number;
}

/** A line of a graph file that is not a valid node: kept as it is, and reported (stores without lines report none). */
export interface MalformedLine {
  /** 1-based line number in the file at the time of the pass (0 when read newest-first, where it is unknown). */
  line: number;
  /** Byte offset of the line's start. */
  offset: number;
  /** The first characters of the line. */
  excerpt: string;
}

/** Malformed entries a query or a write met: at most {@link MALFORMED_REPORT_MAX} are listed, all are counted. */
export interface MalformedReport {
  malformedCount: number;
  malformed: MalformedLine[];
}

export const MALFORMED_REPORT_MAX = 20;

export interface KnowledgePageQuery {
  /** `nextCursor` of the previous page; opaque to callers. */
  cursor?: string;
  limit: number;
  role?: KnowledgeRole;
  /** Only nodes carrying every one of these tags. */
  tags?: readonly string[];
  /** Only nodes whose thought contains this text, case-insensitive. */
  text?: string;
  signal?: AbortSignal;
}

export interface KnowledgePage {
  /** Newest first: the node added (or restored) last comes first. */
  nodes: StoredKnowledgeNode[];
  /** Token for the next (older) page, or null when there is none. */
  nextCursor: string | null;
  /** Malformed entries met while reading this page. */
  malformedCount: number;
}

/**
 * A ranked search of one project (docs/knowledge-graph.md, "Search"). The query comes parsed (the same parse for every
 * store); every store ranks by the same score, Σ idf × ts_rank impact per term (domain/search/impact.ts; the files
 * from their index's counts, PostgreSQL from its stored impacts), equal to the bit.
 * `ranking` leaves room for another ranker (a vector or hybrid one) behind the same tool: only 'text' exists now.
 */
export interface KnowledgeSearchQuery {
  query: SearchQuery;
  ranking?: 'text';
  role?: KnowledgeRole;
  /** Only nodes carrying every one of these tags (exactly, as list_nodes). */
  tags?: readonly string[];
  /** createdAt bounds in ms since the epoch, inclusive. */
  sinceMs?: number;
  untilMs?: number;
  /** Deleted nodes too (their deletion records' node data). */
  includeDeleted?: boolean;
  limit: number;
  /** `nextCursor` of the previous page: the next page of the same ranking (nodes added since are not in it). */
  cursor?: string;
  signal?: AbortSignal;
}

export interface KnowledgeSearchHit {
  node: StoredKnowledgeNode;
  /** Higher is better; comparable within one search only. */
  score: number;
  /** The node is deleted (only with includeDeleted). */
  deleted: boolean;
  /** A cursor continuing this search right after this hit (a search of several projects pages each on its own). */
  after: string;
}

export interface KnowledgeSearchPage {
  /** Best first; equal scores newest first. */
  hits: KnowledgeSearchHit[];
  nextCursor: string | null;
  /**
   * Nodes matching in all (every page of this search) when `totalExact`; otherwise a lower bound: the store stopped
   * counting at its cap (SEARCH_TOTAL_CAP, domain/search/search-total.ts) and answers the cap.
   */
  total: number;
  totalExact: boolean;
}

export interface KnowledgeStats {
  nodes: number;
  deleted: number;
  malformedCount: number;
  /** Nodes of each role. */
  roles: Record<KnowledgeRole, number>;
}

export interface KnowledgeReader {
  /**
   * Ranked search (see KnowledgeSearchQuery).
   * @throws InvalidArgumentsError for a cursor that is not one of ours or no longer fits the graph.
   */
  search(query: KnowledgeSearchQuery): Promise<KnowledgeSearchPage>;
  /**
   * One page of nodes, newest first, matching every filter given; the first page costs the same at any graph size.
   * @throws InvalidArgumentsError for a cursor that is not one of ours or no longer fits the graph.
   */
  page(query: KnowledgePageQuery): Promise<KnowledgePage>;
  /** A node and the ids of its children (the nodes naming it in `parents`), or undefined when it does not exist. */
  get(id: string, signal?: AbortSignal): Promise<{ node: StoredKnowledgeNode; children: string[] } | undefined>;
  /** The nodes with these ids that exist (missing ids are simply absent from the map). */
  findByIds(ids: ReadonlySet<string>, signal?: AbortSignal): Promise<Map<string, StoredKnowledgeNode>>;
  /**
   * The nodes of `ids` that exist (`found`) and every other node that descends from one of them through `parents`,
   * transitively (`dependents`).
   */
  findDependents(ids: readonly string[], signal?: AbortSignal): Promise<{ found: Map<string, StoredKnowledgeNode>; dependents: Map<string, StoredKnowledgeNode> }>;
  /** The summaries whose `summarizedSegment` or `summaryHistory` names one of `ids`. */
  findSummariesMentioning(ids: ReadonlySet<string>, signal?: AbortSignal): Promise<StoredKnowledgeNode[]>;
  /**
   * Deletion records, newest deletion first: only those of `nodeIds` when given, at most `limit` (`total` counts them
   * all).
   */
  deleted(query?: { nodeIds?: ReadonlySet<string>; limit?: number; signal?: AbortSignal }): Promise<{ records: DeletedNodeRecord[]; total: number }>;
  /** How many nodes (by role) and deletion records the project holds; undefined when it has no graph at all. */
  stats(signal?: AbortSignal): Promise<KnowledgeStats | undefined>;
}

/** What a delete did besides removing the nodes. */
export interface DeleteReport extends MalformedReport {
  /** Names the backup taken first (a file path, or the database backup's id); the answer's `backupPath`. */
  backupPath: string;
  /** Backups removed by the age/count limits after this one was taken. */
  pruned: number;
  /** Summaries whose `summarizedSegment` names a deleted node, as stored after the delete. */
  summaries: StoredKnowledgeNode[];
}

/** Writes, available only while holding the project lock. */
export interface KnowledgeWriter extends KnowledgeReader {
  /** Adds nodes as the newest (in order; one durable write). */
  append(nodes: readonly StoredKnowledgeNode[]): Promise<void>;
  /**
   * Soft delete, all or nothing: takes a backup, records each node's deletion (`records`, their `nodeData` the node
   * as stored), removes the nodes and drops their ids from other nodes' `parents`. An interruption at any moment
   * leaves either the nodes in the graph and no record of their deletion, or the delete complete. Not cancellable
   * (the caller checks its signal before).
   */
  deleteWithBackup(records: readonly DeletedNodeRecord[]): Promise<DeleteReport>;
  /**
   * Puts nodes back as the newest (in the order given) and removes every deletion record of their ids, all or
   * nothing: a node is never both in the graph and deleted, never lost.
   */
  restore(nodes: readonly StoredKnowledgeNode[]): Promise<void>;
  /**
   * Rewrites the nodes of `ids` through `change` (undefined: leave it as it is); returns the ids changed. Their place
   * in the newest-first order stays.
   */
  updateNodes(ids: ReadonlySet<string>, change: (node: StoredKnowledgeNode) => StoredKnowledgeNode | undefined): Promise<string[]>;
}
