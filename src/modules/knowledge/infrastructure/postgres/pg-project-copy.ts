import type { PgDatabase, SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { KnowledgeProjectExport } from '../../application/ports/knowledge-store';
import type { DeletedNodeRecord, StoredKnowledgeNode } from '../../domain/knowledge-node';
import { insertNodes, nextSeqs } from './pg-node-rows';
import { catchUpPostings } from './pg-search-catch-up';

/** Nodes read per statement when exporting (keyset pages on `seq`). */
const EXPORT_BATCH = 5_000;

/** A project's rows as a {@link KnowledgeProjectExport}: nodes oldest first in keyset pages, records oldest first. */
export async function exportPgProject(db: PgDatabase, project: string): Promise<KnowledgeProjectExport | undefined> {
  const [row] = await db.query<{ owner_path_key: string | null; owner_identity: string | null; nodes: string; deleted: string }>(
    'SELECT owner_path_key, owner_identity, nodes::text AS nodes, deleted::text AS deleted FROM wg_knowledge_projects WHERE project = $1',
    [project],
  );
  if (!row || (row.nodes === '0' && row.deleted === '0')) return undefined;
  const deleted = (await db.query<{ record: DeletedNodeRecord }>('SELECT record FROM wg_knowledge_deleted WHERE project = $1 ORDER BY seq', [project])).map((r) => r.record);
  return {
    project,
    ownerPathKey: row.owner_path_key,
    ownerIdentity: row.owner_identity,
    deleted,
    async forEachBatch(fn) {
      let after = '0';
      for (;;) {
        const rows = await db.query<{ node: StoredKnowledgeNode; at: string }>(
          'SELECT node, seq::text AS at FROM wg_knowledge_nodes WHERE project = $1 AND seq > $2::bigint ORDER BY wg_knowledge_nodes.seq LIMIT $3',
          [project, after, EXPORT_BATCH],
        );
        if (!rows.length) return;
        after = rows[rows.length - 1]!.at;
        await fn(rows.map((r) => r.node));
      }
    },
  };
}

/**
 * Replaces a project's nodes and records in one transaction holding its row lock (readers see the old graph or the
 * new one), then notifies like any write. Backups stay. The project's counters are recomputed from what was written.
 */
export async function importPgProject(db: PgDatabase, data: KnowledgeProjectExport, notify: (tx: SqlRunner) => Promise<void>): Promise<{ nodes: number; deleted: number }> {
  const { project } = data;
  const copied = await db.transaction(async (tx) => {
    await tx.query('INSERT INTO wg_knowledge_projects (project) VALUES ($1) ON CONFLICT (project) DO NOTHING', [project]);
    await tx.query('SELECT 1 FROM wg_knowledge_projects WHERE project = $1 FOR UPDATE', [project]);
    await tx.query('DELETE FROM wg_knowledge_nodes WHERE project = $1', [project]);
    await tx.query('DELETE FROM wg_knowledge_deleted WHERE project = $1', [project]);
    let nodes = 0;
    let bytes = 0;
    await data.forEachBatch(async (batch) => {
      nodes += batch.length;
      // With their search vectors (the catch-up after the import, or the next search's, then only posts them): each
      // row written once, not inserted and then updated by the catch-up — at 20,000 nodes the table 24.9 MB instead
      // of 38.9 (20,000 dead rows) and 26 MB less WAL, in the same time (three alternating runs each, load 2.5).
      bytes += await insertNodes(tx, project, batch, await nextSeqs(tx, batch.length), true);
    });
    const json = data.deleted.map((r) => JSON.stringify(r));
    await tx.query(
      `INSERT INTO wg_knowledge_deleted (project, node_id, record) SELECT $1, u.id, u.record::json FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS u(id, record, ord) ORDER BY u.ord`,
      [project, data.deleted.map((r) => r.nodeId), json],
    );
    await tx.query(
      `UPDATE wg_knowledge_projects SET version = version + 1, modified_at = now(), nodes = $2, deleted = $3, size_bytes = $4, deleted_size_bytes = $5,
         owner_path_key = COALESCE($6, owner_path_key),
         owner_identity = CASE WHEN COALESCE($6, owner_path_key) IS NULL THEN COALESCE($7, owner_identity) ELSE owner_identity END WHERE project = $1`,
      [project, nodes, data.deleted.length, bytes, json.reduce((a, j) => a + Buffer.byteLength(j) + 1, 0), data.ownerPathKey, data.ownerIdentity ?? null],
    );
    await notify(tx);
    return { nodes, deleted: data.deleted.length };
  });
  // A bulk import changes the tables more than autovacuum's analyze notices at once: fresh statistics keep the
  // planner on the GIN index for searches (a stale estimate chose a sequential scan). Its rows are posted first
  // (migration 14: the catch-up every search makes, in statements of bounded size), so the import pays for its
  // postings as it did when a trigger wrote them, not the first search after it, and the statistics see them.
  if (copied.nodes >= BULK_ANALYZE_NODES) {
    await catchUpPostings(db, project);
    await db.query('ANALYZE wg_knowledge_nodes, wg_knowledge_postings, wg_knowledge_terms');
  }
  return copied;
}

/** Imports of at least this many nodes refresh the search tables' statistics. */
const BULK_ANALYZE_NODES = 10_000;
