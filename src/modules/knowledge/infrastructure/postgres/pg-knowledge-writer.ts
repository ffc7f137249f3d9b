import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { DeleteReport, KnowledgeWriter } from '../../application/ports/knowledge-store';
import { summarizesAny } from '../../domain/summaries';
import type { DeletedNodeRecord, StoredKnowledgeNode } from '../../domain/knowledge-node';
import { PgKnowledgeReader } from './pg-knowledge-reader';
import { insertNodes, mentionsOf, nextSeqs } from './pg-node-rows';

export interface PgWriterSettings {
  /** ISO time of now (backup times). */
  now: () => string;
  backupMaxAgeDays: number;
  backupMaxCount: number;
  /** Names a backup in answers (`backupPath`). */
  backupPath: (project: string, id: string) => string;
}

/** How a write changed the project's counters (applied to its row when the transaction ends). */
export interface CounterDelta {
  nodes: number;
  deleted: number;
  sizeBytes: number;
  deletedSizeBytes: number;
}

/**
 * The writes of one project inside a transaction holding its row lock (`SELECT … FOR UPDATE` on
 * wg_knowledge_projects): every statement is on that transaction, so a failure anywhere rolls all of it back — a
 * delete is all or nothing without any marker file.
 */
export class PgKnowledgeWriter extends PgKnowledgeReader implements KnowledgeWriter {
  readonly delta: CounterDelta = { nodes: 0, deleted: 0, sizeBytes: 0, deletedSizeBytes: 0 };
  changed = false;

  constructor(tx: SqlRunner, project: string, private readonly version: string, private readonly settings: PgWriterSettings) {
    super(tx, project);
  }

  async append(nodes: readonly StoredKnowledgeNode[]): Promise<void> {
    if (!nodes.length) return;
    const bytes = await insertNodes(this.sql, this.project, nodes, await nextSeqs(this.sql, nodes.length));
    this.count({ nodes: nodes.length, sizeBytes: bytes });
  }

  /**
   * The backup is a row naming the project's version plus a copy of the rows this delete removes (what a restore
   * needs), never the whole project: the cost follows the nodes deleted, not the graph's size.
   */
  async deleteWithBackup(records: readonly DeletedNodeRecord[]): Promise<DeleteReport> {
    const ids = records.map((r) => r.nodeId);
    const removed = await this.sql.query<{ bytes: number }>(
      'SELECT octet_length(node::text) + 1 AS bytes FROM wg_knowledge_nodes WHERE project = $1 AND id = ANY($2::text[])',
      [this.project, ids],
    );
    const removedBytes = removed.reduce((a, r) => a + Number(r.bytes), 0);
    const [backup] = await this.sql.query<{ id: string }>(
      `INSERT INTO wg_knowledge_backups (project, created_at, version, node_count, size_bytes) VALUES ($1, $2, $3, $4, $5) RETURNING id::text AS id`,
      [this.project, this.settings.now(), this.version, removed.length, removedBytes],
    );
    await this.sql.query(
      `INSERT INTO wg_knowledge_backup_nodes (backup_id, node_id, node, ord)
       SELECT $1, id, node, row_number() OVER (ORDER BY seq) FROM wg_knowledge_nodes WHERE project = $2 AND id = ANY($3::text[])`,
      [backup!.id, this.project, ids],
    );
    const json = records.map((r) => JSON.stringify(r));
    await this.sql.query(
      `INSERT INTO wg_knowledge_deleted (project, node_id, record) SELECT $1, u.id, u.record::json FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS u(id, record, ord) ORDER BY u.ord`,
      [this.project, ids, json],
    );
    await this.sql.query('DELETE FROM wg_knowledge_nodes WHERE project = $1 AND id = ANY($2::text[])', [this.project, ids]);
    // After the dependents check no node names a deleted one as parent; hand-made data might: drop those links.
    const deleted = new Set(ids);
    const linked = await this.sql.query<{ node: StoredKnowledgeNode }>('SELECT node FROM wg_knowledge_nodes WHERE project = $1 AND parents && $2::text[]', [this.project, ids]);
    for (const { node } of linked) await this.rewrite({ ...node, parents: node.parents.filter((p) => !deleted.has(p)) });
    const summaries = (await this.findSummariesMentioning(deleted)).filter((n) => summarizesAny(n, deleted));
    const pruned = await this.pruneBackups(backup!.id);
    this.count({ nodes: -removed.length, sizeBytes: -removedBytes, deleted: records.length, deletedSizeBytes: json.reduce((a, j) => a + Buffer.byteLength(j) + 1, 0) });
    return { backupPath: this.settings.backupPath(this.project, backup!.id), pruned, summaries, malformedCount: 0, malformed: [] };
  }

  async restore(nodes: readonly StoredKnowledgeNode[]): Promise<void> {
    if (!nodes.length) return;
    await this.append(nodes);
    const gone = await this.sql.query<{ bytes: number }>(
      'DELETE FROM wg_knowledge_deleted WHERE project = $1 AND node_id = ANY($2::text[]) RETURNING octet_length(record::text) + 1 AS bytes',
      [this.project, nodes.map((n) => n.id)],
    );
    this.count({ deleted: -gone.length, deletedSizeBytes: -gone.reduce((a, r) => a + Number(r.bytes), 0) });
  }

  async updateNodes(ids: ReadonlySet<string>, change: (node: StoredKnowledgeNode) => StoredKnowledgeNode | undefined): Promise<string[]> {
    const changed: string[] = [];
    for (const node of (await this.findByIds(ids)).values()) {
      const next = change(node);
      if (!next) continue;
      await this.rewrite(next);
      changed.push(node.id);
    }
    return changed;
  }

  /** Replaces a node's row in place (its `seq`, so its place in the order, stays). */
  private async rewrite(node: StoredKnowledgeNode): Promise<void> {
    const json = JSON.stringify(node);
    const [old] = await this.sql.query<{ bytes: number }>(
      `UPDATE wg_knowledge_nodes n SET role = $3, tags = $4::text[], parents = $5::text[], mentions = $6::text[], node = $7::json
       FROM (SELECT octet_length(node::text) AS bytes FROM wg_knowledge_nodes WHERE project = $1 AND id = $2) old
       WHERE n.project = $1 AND n.id = $2 RETURNING old.bytes`,
      [this.project, node.id, node.role, node.tags, node.parents, mentionsOf(node), json],
    );
    this.count({ sizeBytes: Buffer.byteLength(json) - Number(old?.bytes ?? 0) });
  }

  /**
   * Backups older than the age limit, or beyond the count limit, go (never the one just taken). Newest by time, not
   * id: a backup imported from a data dir later can be older than those taken here.
   */
  private async pruneBackups(keep: string): Promise<number> {
    const cutoff = new Date(Date.parse(this.settings.now()) - this.settings.backupMaxAgeDays * 86_400_000).toISOString();
    const rows = await this.sql.query(
      `DELETE FROM wg_knowledge_backups WHERE project = $1 AND id <> $2 AND (created_at < $3 OR id NOT IN (
         SELECT id FROM wg_knowledge_backups WHERE project = $1 ORDER BY created_at DESC, id DESC LIMIT $4)) RETURNING id`,
      [this.project, keep, cutoff, this.settings.backupMaxCount],
    );
    return rows.length;
  }

  private count(d: Partial<CounterDelta>): void {
    this.changed = true;
    this.delta.nodes += d.nodes ?? 0;
    this.delta.deleted += d.deleted ?? 0;
    this.delta.sizeBytes += d.sizeBytes ?? 0;
    this.delta.deletedSizeBytes += d.deletedSizeBytes ?? 0;
  }
}
