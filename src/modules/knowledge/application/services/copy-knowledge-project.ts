import { createHash } from 'node:crypto';
import type { KnowledgeProjectExport, KnowledgeStore } from '../ports/knowledge-store';

export type CopyOutcome = { outcome: 'imported'; nodes: number; deleted: number } | { outcome: 'unchanged' | 'skipped'; nodes: number; deleted: number };

/**
 * Copies one project's knowledge graph from one store to another (`db import`, `db export`): unchanged when the
 * target already holds exactly the same nodes and deletion records in the same order (so running it again copies
 * nothing), kept as it is when it differs unless `replace`, else replaced wholesale.
 */
export async function copyKnowledgeProject(source: KnowledgeStore, target: KnowledgeStore, project: string, opts: { replace?: boolean } = {}): Promise<CopyOutcome> {
  const from = await source.exportProject(project);
  if (!from) return { outcome: 'unchanged', nodes: 0, deleted: 0 };
  const to = await target.exportProject(project);
  const want = await digest(from);
  if (to) {
    const have = await digest(to);
    if (have.hash === want.hash) return { outcome: 'unchanged', nodes: want.nodes, deleted: from.deleted.length };
    if (!opts.replace) return { outcome: 'skipped', nodes: want.nodes, deleted: from.deleted.length };
  }
  const written = await target.importProject(from);
  return { outcome: 'imported', ...written };
}

/** A hash of the nodes and records as JSON lines, in order, and the node count (one pass over the nodes). */
async function digest(data: KnowledgeProjectExport): Promise<{ hash: string; nodes: number }> {
  const hash = createHash('sha256');
  let nodes = 0;
  await data.forEachBatch(async (batch) => {
    nodes += batch.length;
    for (const n of batch) hash.update(JSON.stringify(n) + '\n');
  });
  hash.update('--deleted--\n');
  for (const r of data.deleted) hash.update(JSON.stringify(r) + '\n');
  hash.update(`owner:${data.ownerPathKey ?? ''}${data.ownerIdentity ? ` identity:${data.ownerIdentity}` : ''}`);
  return { hash: hash.digest('hex'), nodes };
}
