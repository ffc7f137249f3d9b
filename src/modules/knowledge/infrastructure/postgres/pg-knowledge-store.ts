import type { Clock } from '../../../../kernel/clock';
import { systemClock } from '../../../../kernel/clock';
import { NotFoundError } from '../../../../kernel/errors';
import type { PgDatabase, SqlRunner } from '../../../../kernel/postgres/pg-database';
import { exportPgProject, importPgProject } from './pg-project-copy';
import { exportPgBackups, importPgBackups } from './pg-backup-copy';
import type { WritesInProgress } from '../../../../kernel/writes-in-progress';
import type { KnowledgeBackupCopy, KnowledgeBackupInfo, KnowledgeOwner, KnowledgeProjectExport, KnowledgeProjectInfo, KnowledgeReader, KnowledgeStore } from '../../application/ports/knowledge-store';
import type { StoredKnowledgeNode } from '../../domain/knowledge-node';
import { projectIdentity } from '../../domain/project-from-context';
import { PgKnowledgeReader } from './pg-knowledge-reader';
import { PgKnowledgeWriter } from './pg-knowledge-writer';
import { PgSearchCache } from './pg-search-cache';
import { PairListSource } from './pg-search-pair-list-source';
import { termSource } from './pg-search-term-source';

/** The channel every PostgreSQL store notifies on after a change (the change bridge LISTENs to it on every host). */
const CHANGE_CHANNEL = 'workgraph_changes';

export interface PgKnowledgeStoreOptions {
  /** Time of backups. Default: the system clock. */
  clock?: Clock;
  /** Backups older than this are pruned after each new backup. Default 90. */
  backupMaxAgeDays?: number;
  /** At most this many backups per project are kept. Default 50. */
  backupMaxCount?: number;
  /** Where writes in progress are registered, so shutdown can wait for them. */
  writes?: WritesInProgress;
  /** search_nodes counts matches up to this many, then answers it as a lower bound. Default SEARCH_TOTAL_CAP (tests lower it). */
  searchTotalCap?: number;
  /**
   * Bytes of term postings the search cache of this store (this host) may hold (pg-search-cache.ts; the server's
   * `knowledge.searchCacheBytes`, WORKGRAPH_SEARCH_CACHE_MB). Default 0: no cache, every search through SQL.
   */
  searchCacheBytes?: number;
}

/** `backupPath` of a database backup (`restore-backup` takes it, or `<project>/<id>`). */
const backupPath = (project: string, id: string) => `postgresql:wg_knowledge_backups/${project}/${id}`;
const BACKUP_PATH = /^(?:postgresql:wg_knowledge_backups\/)?([a-z0-9][a-z0-9-]*)\/(\d{1,19}|knowledge_graph_[\d-]+\.ndjson)$/;
type OwnerRow = { owner_path_key: string | null; owner_identity: string | null };
const BACKUP_COLUMNS = 'id::text AS id, project, created_at, node_count, size_bytes, version::text AS version, name';

/**
 * Knowledge graphs in PostgreSQL (docs/postgres.md): one row per node, deletion records, backups as the rows a
 * delete removed plus the project's version. Writers of a project serialize on its row in `wg_knowledge_projects`
 * (`SELECT … FOR UPDATE` in one transaction), on any host; each committed write bumps the project's version and
 * notifies `workgraph_changes` with `{kind: "knowledge", project}`.
 */
export class PgKnowledgeStore implements KnowledgeStore {
  private readonly clock: Clock;
  /** This host's postings cache for search_nodes, when its budget is above 0. */
  readonly searchCache: PgSearchCache | undefined;

  constructor(private readonly db: PgDatabase, private readonly options: PgKnowledgeStoreOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.searchCache = options.searchCacheBytes ? new PgSearchCache(db, options.searchCacheBytes, [termSource, new PairListSource(db)]) : undefined;
  }

  location(project: string): string {
    return `${this.db.redactedUrl} (knowledge project '${project}')`;
  }

  async resolveProject(projectContext: string, opts: { claim?: boolean } = {}): Promise<string> {
    const ident = projectIdentity(projectContext);
    if (ident.pathKey === null || ident.altId === null) return ident.id;
    const rows = await this.db.query<OwnerRow>('SELECT owner_path_key, owner_identity FROM wg_knowledge_projects WHERE project = $1', [ident.id]);
    let owner = rows[0] ?? { owner_path_key: null, owner_identity: null };
    if (owner.owner_path_key === null && owner.owner_identity === null && opts.claim) {
      // First add from a folder: claim the plain id unless another folder (or an identity) did first (the row
      // decides, on any host).
      const claimed = await this.db.query<OwnerRow>(
        `INSERT INTO wg_knowledge_projects (project, owner_path_key, owner_context) VALUES ($1, $2, $3)
         ON CONFLICT (project) DO UPDATE SET
           owner_path_key = CASE WHEN wg_knowledge_projects.owner_identity IS NULL
             THEN COALESCE(wg_knowledge_projects.owner_path_key, EXCLUDED.owner_path_key) ELSE wg_knowledge_projects.owner_path_key END,
           owner_context = COALESCE(wg_knowledge_projects.owner_context, EXCLUDED.owner_context)
         RETURNING owner_path_key, owner_identity`,
        [ident.id, ident.pathKey, projectContext],
      );
      owner = claimed[0]!;
    }
    const taken = owner.owner_identity !== null || (owner.owner_path_key !== null && owner.owner_path_key !== ident.pathKey);
    if (!taken) return ident.id;
    if (opts.claim) {
      // The alternative id's row records its folder too, so reach checks find its owner without reading a node.
      await this.db.query(
        `INSERT INTO wg_knowledge_projects (project, owner_path_key, owner_context) VALUES ($1, $2, $3)
         ON CONFLICT (project) DO UPDATE SET owner_path_key = COALESCE(wg_knowledge_projects.owner_path_key, EXCLUDED.owner_path_key),
           owner_context = COALESCE(wg_knowledge_projects.owner_context, EXCLUDED.owner_context)
         WHERE wg_knowledge_projects.owner_identity IS NULL`,
        [ident.altId, ident.pathKey, projectContext],
      );
    }
    return ident.altId;
  }

  async owner(project: string): Promise<KnowledgeOwner> {
    const [row] = await this.db.query<OwnerRow>('SELECT owner_path_key, owner_identity FROM wg_knowledge_projects WHERE project = $1', [project]);
    if (row && (row.owner_path_key !== null || row.owner_identity !== null)) return { pathKey: row.owner_path_key, identity: row.owner_identity };
    // Rows written before owners were recorded on every row (an alternative id's): the folder of the newest node named
    // by a path, as the files answer.
    const [newest] = await this.db.query<{ context: string | null }>(
      `SELECT node->>'projectContext' AS context FROM wg_knowledge_nodes WHERE project = $1 AND node->>'projectContext' ~ '[\\\\/]' ORDER BY seq DESC LIMIT 1`,
      [project],
    );
    return { pathKey: newest?.context ? projectIdentity(newest.context).pathKey : null, identity: null };
  }

  async claimForIdentity(project: string, identity: string): Promise<KnowledgeOwner> {
    const before = await this.owner(project);
    if (before.pathKey !== null || before.identity !== null) return before;
    const [row] = await this.db.query<OwnerRow>(
      `INSERT INTO wg_knowledge_projects (project, owner_identity) VALUES ($1, $2)
       ON CONFLICT (project) DO UPDATE SET owner_identity = CASE WHEN wg_knowledge_projects.owner_path_key IS NULL
         THEN COALESCE(wg_knowledge_projects.owner_identity, EXCLUDED.owner_identity) ELSE wg_knowledge_projects.owner_identity END
       RETURNING owner_path_key, owner_identity`,
      [project, identity],
    );
    return { pathKey: row!.owner_path_key, identity: row!.owner_identity };
  }

  reader(project: string): KnowledgeReader {
    return new PgKnowledgeReader(this.db, project, this.options.searchTotalCap, this.searchCache);
  }

  async withLock<T>(project: string, fn: (graph: PgKnowledgeWriter) => Promise<T>): Promise<T> {
    const write = this.db.transaction(async (tx) => {
      await tx.query('INSERT INTO wg_knowledge_projects (project) VALUES ($1) ON CONFLICT (project) DO NOTHING', [project]);
      const [row] = await tx.query<{ version: string }>('SELECT version::text AS version FROM wg_knowledge_projects WHERE project = $1 FOR UPDATE', [project]);
      const writer = new PgKnowledgeWriter(tx, project, row!.version, {
        now: () => new Date(this.clock.now()).toISOString(),
        backupMaxAgeDays: this.options.backupMaxAgeDays ?? 90,
        backupMaxCount: this.options.backupMaxCount ?? 50,
        backupPath,
      });
      const value = await fn(writer);
      if (writer.changed) {
        const d = writer.delta;
        await tx.query(
          `UPDATE wg_knowledge_projects SET version = version + 1, modified_at = now(), nodes = nodes + $2, deleted = deleted + $3,
             size_bytes = size_bytes + $4, deleted_size_bytes = deleted_size_bytes + $5 WHERE project = $1`,
          [project, d.nodes, d.deleted, d.sizeBytes, d.deletedSizeBytes],
        );
        await this.notify(tx, project);
      }
      return value;
    });
    return this.options.writes ? this.options.writes.track(write) : write;
  }

  exportProject(project: string): Promise<KnowledgeProjectExport | undefined> {
    return exportPgProject(this.db, project);
  }

  async importProject(data: KnowledgeProjectExport): Promise<{ nodes: number; deleted: number }> {
    const write = importPgProject(this.db, data, (tx) => this.notify(tx, data.project));
    return this.options.writes ? this.options.writes.track(write) : write;
  }

  async exportBackups(project: string): Promise<{ backups: KnowledgeBackupCopy[]; ignored: string[] }> {
    return { backups: await exportPgBackups(this.db, project), ignored: [] };
  }

  async importBackups(project: string, backups: readonly KnowledgeBackupCopy[]): Promise<void> {
    const write = importPgBackups(this.db, project, backups);
    return this.options.writes ? this.options.writes.track(write) : write;
  }

  /** Delivered on commit to every host LISTENing (the change bridge), as `{kind: "knowledge", project}`. */
  private async notify(tx: SqlRunner, project: string): Promise<void> {
    await tx.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, JSON.stringify({ kind: 'knowledge', project, id: project, at: new Date(this.clock.now()).toISOString() })]);
  }

  async listProjects(): Promise<KnowledgeProjectInfo[]> {
    const rows = await this.db.query<{ project: string; size_bytes: string; deleted_size_bytes: string; modified_at: Date; backups: string }>(
      `SELECT p.project, p.size_bytes, p.deleted_size_bytes, p.modified_at,
              (SELECT count(*) FROM wg_knowledge_backups b WHERE b.project = p.project) AS backups
       FROM wg_knowledge_projects p WHERE p.nodes > 0 OR p.deleted > 0 ORDER BY p.project`,
    );
    return rows.map((r) => ({
      project: r.project,
      sizeBytes: Number(r.size_bytes),
      modifiedAt: new Date(r.modified_at).toISOString(),
      deletedSizeBytes: Number(r.deleted_size_bytes),
      backups: Number(r.backups),
    }));
  }

  async listBackups(project: string): Promise<KnowledgeBackupInfo[]> {
    const rows = await this.db.query<BackupRow>(`SELECT ${BACKUP_COLUMNS} FROM wg_knowledge_backups WHERE project = $1 ORDER BY created_at DESC, id DESC`, [project]);
    return rows.map(toInfo);
  }

  /** `id`: `<project>/<n>`, the `backupPath` a delete answered, or `<project>/<file name>` of a backup imported from files. */
  async readBackup(id: string): Promise<{ project: string; backup: KnowledgeBackupInfo; nodes: StoredKnowledgeNode[] }> {
    const m = BACKUP_PATH.exec(id);
    const notFound = () => new NotFoundError('knowledge backup', id, `knowledge backup '${id}' not found; workgraph knowledge backups PROJECT lists them`);
    if (!m) throw notFound();
    const rows = await this.db.query<BackupRow>(
      `SELECT ${BACKUP_COLUMNS} FROM wg_knowledge_backups WHERE project = $1 AND ${/^\d+$/.test(m[2]!) ? 'id = $2::bigint' : 'name = $2'}`,
      [m[1], m[2]],
    );
    if (!rows.length) throw notFound();
    // Graph order (oldest first), as a backup file holds them: a restore puts them back in this order.
    const nodes = await this.db.query<{ node: StoredKnowledgeNode }>('SELECT node FROM wg_knowledge_backup_nodes WHERE backup_id = $1 ORDER BY ord NULLS LAST, node_id', [
      rows[0]!.id,
    ]);
    return { project: rows[0]!.project, backup: toInfo(rows[0]!), nodes: nodes.map((n) => n.node) };
  }
}

interface BackupRow {
  id: string;
  project: string;
  created_at: string;
  node_count: number;
  size_bytes: string;
  version: string;
  name: string | null;
}

function toInfo(r: BackupRow): KnowledgeBackupInfo {
  return {
    id: `${r.project}/${r.id}`,
    // A backup imported from a data dir says its file name: `<project>/<file name>` names it too.
    file: r.name ? `${r.name} (backup ${r.id}, imported at version ${r.version})` : `backup ${r.id} (version ${r.version})`,
    path: backupPath(r.project, r.id),
    sizeBytes: Number(r.size_bytes),
    modifiedAt: r.created_at,
    nodes: r.node_count,
  };
}
