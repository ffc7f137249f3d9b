import type { KnowledgeBackupCopy, KnowledgeStore } from '../ports/knowledge-store';
import type { StoredKnowledgeNode } from '../../domain/knowledge-node';
import type { CopyOutcome } from './copy-knowledge-project';

export interface BackupCopyResult {
  name: string;
  outcome: CopyOutcome['outcome'];
  /** Nodes the copied backup holds (the source's, reduced as below). */
  nodes: number;
}

/**
 * Copies a project's backups (`db import`, `db export`; `backups` is `source.exportBackups(project)`, read before
 * anything of the project is written, so a damaged backup stops the project before it is half-copied).
 *
 * A backup is copied as what restoring it would bring back now: its nodes that the source's live graph lacks. A file
 * backup holds the whole graph as it was before a delete, a database backup only the rows its delete removed, and
 * restore-backup brings back just the nodes the graph lacks — so this keeps the database's backups small (as its own
 * are) and a restore of the copy brings back exactly what a restore of the original does. A backup of the same name
 * in the target is `unchanged` when it holds every one of those nodes as they are (a whole-graph file holds more),
 * else kept unless `replace`. Everything to write goes in one call to the target (all or nothing).
 */
export async function copyKnowledgeBackups(
  source: KnowledgeStore,
  target: KnowledgeStore,
  project: string,
  backups: readonly KnowledgeBackupCopy[],
  opts: { replace?: boolean } = {},
): Promise<BackupCopyResult[]> {
  if (!backups.length) return [];
  const ids = new Set(backups.flatMap((b) => b.nodes.map((n) => n.id)));
  const live = await source.reader(project).findByIds(ids);
  const existing = new Map((await target.exportBackups(project)).backups.map((b) => [b.name, b]));
  const results: BackupCopyResult[] = [];
  const write: KnowledgeBackupCopy[] = [];
  for (const backup of backups) {
    const copy = { ...backup, nodes: lacking(backup.nodes, live) };
    const there = existing.get(backup.name);
    let outcome: CopyOutcome['outcome'] = 'imported';
    if (there && holdsAll(there.nodes, copy.nodes)) outcome = 'unchanged';
    else if (there && !opts.replace) outcome = 'skipped';
    else write.push(copy);
    results.push({ name: backup.name, outcome, nodes: copy.nodes.length });
  }
  await target.importBackups(project, write);
  return results;
}

/** The nodes absent from `live`, in their order, one per id (a repeated id keeps its last line, as a newer one). */
function lacking(nodes: readonly StoredKnowledgeNode[], live: ReadonlyMap<string, StoredKnowledgeNode>): StoredKnowledgeNode[] {
  const byId = new Map<string, StoredKnowledgeNode>();
  for (const n of nodes) {
    if (live.has(n.id)) continue;
    byId.delete(n.id);
    byId.set(n.id, n);
  }
  return [...byId.values()];
}

function holdsAll(have: readonly StoredKnowledgeNode[], want: readonly StoredKnowledgeNode[]): boolean {
  const json = new Map(have.map((n) => [n.id, JSON.stringify(n)]));
  return want.every((n) => json.get(n.id) === JSON.stringify(n));
}
