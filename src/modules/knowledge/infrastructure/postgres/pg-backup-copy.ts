import type { PgDatabase } from '../../../../kernel/postgres/pg-database';
import type { KnowledgeBackupCopy } from '../../application/ports/knowledge-store';
import type { StoredKnowledgeNode } from '../../domain/knowledge-node';
import { backupStamp } from '../backup-files';

/**
 * A project's database backups for `db export`, oldest first, each with its nodes in the order they had in the graph.
 * A backup imported from a data dir keeps the file name it came with; one taken here is named after its time as the
 * files name theirs (`-1`, `-2`, … for the same second, in id order), so exporting twice writes the same names.
 */
export async function exportPgBackups(db: PgDatabase, project: string): Promise<KnowledgeBackupCopy[]> {
  const rows = await db.query<{ id: string; name: string | null; created_at: string }>(
    'SELECT id::text AS id, name, created_at FROM wg_knowledge_backups WHERE project = $1 ORDER BY created_at, id',
    [project],
  );
  if (!rows.length) return [];
  const nodes = await db.query<{ id: string; node: StoredKnowledgeNode }>(
    `SELECT n.backup_id::text AS id, n.node FROM wg_knowledge_backup_nodes n JOIN wg_knowledge_backups b ON b.id = n.backup_id
     WHERE b.project = $1 ORDER BY n.backup_id, n.ord NULLS LAST, n.node_id`,
    [project],
  );
  const byBackup = new Map<string, StoredKnowledgeNode[]>(rows.map((r) => [r.id, []]));
  for (const n of nodes) byBackup.get(n.id)?.push(n.node);
  const taken = new Set(rows.flatMap((r) => (r.name ? [r.name] : [])));
  return rows.map((r) => {
    let name = r.name;
    for (let n = 0; name === null; n++) {
      const candidate = `knowledge_graph_${backupStamp(Date.parse(r.created_at))}${n === 0 ? '' : `-${n}`}.ndjson`;
      if (!taken.has(candidate)) name = candidate;
    }
    taken.add(name);
    return { name, takenAt: r.created_at, nodes: byBackup.get(r.id)! };
  });
}

/**
 * Writes backups copied from a data dir in one transaction holding the project's row lock (all or nothing): a row
 * under the backup's file name and time, recording the project's version now, plus its nodes in order. A backup of
 * the same name is replaced. The graph is not changed, so its version stays and nothing is notified.
 */
export async function importPgBackups(db: PgDatabase, project: string, backups: readonly KnowledgeBackupCopy[]): Promise<void> {
  if (!backups.length) return;
  await db.transaction(async (tx) => {
    await tx.query('INSERT INTO wg_knowledge_projects (project) VALUES ($1) ON CONFLICT (project) DO NOTHING', [project]);
    const [row] = await tx.query<{ version: string }>('SELECT version::text AS version FROM wg_knowledge_projects WHERE project = $1 FOR UPDATE', [project]);
    for (const b of backups) {
      const json = b.nodes.map((n) => JSON.stringify(n));
      await tx.query('DELETE FROM wg_knowledge_backups WHERE project = $1 AND name = $2', [project, b.name]);
      const [backup] = await tx.query<{ id: string }>(
        'INSERT INTO wg_knowledge_backups (project, created_at, version, node_count, size_bytes, name) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id::text AS id',
        [project, b.takenAt, row!.version, json.length, json.reduce((a, j) => a + Buffer.byteLength(j) + 1, 0), b.name],
      );
      await tx.query(
        `INSERT INTO wg_knowledge_backup_nodes (backup_id, node_id, node, ord)
         SELECT $1, u.id, u.node::json, u.ord FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS u(id, node, ord)`,
        [backup!.id, b.nodes.map((n) => n.id), json],
      );
    }
  });
}
