import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { KnowledgeProjectExport } from '../application/ports/knowledge-store';
import type { StoredKnowledgeNode } from '../domain/knowledge-node';
import { assertSize, commitTempFile, tempPathFor, writeAll, writeFileAtomic } from '../../../kernel/files/atomic-write';
import { toStorageError } from '../../../kernel/files/storage-errors';
import type { KnowledgePaths } from './knowledge-files';
import { forEachLine } from './line-reader';
import { NdjsonGraphReader } from './ndjson-graph-reader';
import { parseNode, readIo } from './ndjson-passes';
import { makeDir } from '../../../kernel/files/make-dir';

/** The owner file's name (see NdjsonKnowledgeStore.resolveProject). */
export const OWNER_FILE = 'knowledge_graph.owner.json';

/**
 * A project's files as a {@link KnowledgeProjectExport}: nodes streamed oldest first (one chunk of the file per
 * batch), the deletion records, the owner. Malformed lines are not nodes and are not copied.
 */
export async function exportNdjsonProject(
  project: string,
  paths: KnowledgePaths,
  owner: { pathKey: string | null; identity: string | null },
): Promise<KnowledgeProjectExport | undefined> {
  const reader = new NdjsonGraphReader(paths);
  if (!(await reader.stats())) return undefined;
  const deleted = (await reader.deleted()).records.reverse();
  return {
    project,
    ownerPathKey: owner.pathKey,
    ownerIdentity: owner.identity,
    deleted,
    async forEachBatch(fn) {
      let batch: StoredKnowledgeNode[] = [];
      const flush = async () => {
        if (!batch.length) return;
        const out = batch;
        batch = [];
        await fn(out);
      };
      await readIo(paths.graph, () =>
        forEachLine(
          paths.graph,
          (text) => {
            const node = text === '' ? undefined : parseNode(text);
            if (node) batch.push(node);
          },
          { afterChunk: flush },
        ),
      );
      await flush();
    },
  };
}

/**
 * Writes `data` as the project's files (the caller holds the project lock): the graph streamed into a temp file,
 * fsynced and renamed over the old one, then the deletion records and the owner the same way. The graph is renamed
 * last but one: an interruption leaves the old graph, or the new one with the old records, which the next delete or
 * restore settles like any other two-file change.
 */
export async function importNdjsonProject(paths: KnowledgePaths, data: KnowledgeProjectExport): Promise<{ nodes: number; deleted: number }> {
  await makeDir(paths.dir);
  const tmp = tempPathFor(paths.graph);
  let nodes = 0;
  let written = 0;
  const out = await fs.open(tmp, 'w', 0o644).catch((e) => {
    throw toStorageError(e, 'write', paths.graph);
  });
  try {
    await data.forEachBatch(async (batch) => {
      nodes += batch.length;
      written += await writeAll(out, batch.map((n) => JSON.stringify(n) + '\n').join(''), written);
    });
    await out.sync();
    await assertSize(out, written, paths.graph);
    await out.close();
    await commitTempFile(tmp, paths.graph);
  } catch (e) {
    await out.close().catch(() => undefined);
    await fs.rm(tmp, { force: true }).catch(() => undefined);
    throw toStorageError(e, 'write', paths.graph);
  }
  await writeFileAtomic(paths.deleted, data.deleted.map((r) => JSON.stringify(r) + '\n').join(''));
  if (data.ownerPathKey !== null) {
    await writeFileAtomic(path.join(paths.dir, OWNER_FILE), JSON.stringify({ pathKey: data.ownerPathKey, recordedBy: 'workgraph db export' }) + '\n');
  } else if (data.ownerIdentity) {
    await writeFileAtomic(path.join(paths.dir, OWNER_FILE), JSON.stringify({ identity: data.ownerIdentity, recordedBy: 'workgraph db export' }) + '\n');
  }
  return { nodes, deleted: data.deleted.length };
}
