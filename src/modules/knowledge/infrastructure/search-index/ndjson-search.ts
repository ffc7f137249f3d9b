import * as fsSync from 'node:fs';
import type { KnowledgeSearchHit, KnowledgeSearchPage, KnowledgeSearchQuery } from '../../application/ports/knowledge-store';
import type { StoredKnowledgeNode } from '../../domain/knowledge-node';
import { CancelledError } from '../../../../kernel/errors';
import { errnoCode, toStorageError } from '../../../../kernel/files/storage-errors';
import type { KnowledgePaths } from '../knowledge-files';
import { forEachLine } from '../line-reader';
import { parseNode, parseRecord } from '../ndjson-passes';
import { evaluateQuery, type SearchSegment } from './index-search';
import { readRange } from './graph-range';
import { SearchIndexFiles } from './search-index';
import { decodeSearchCursor, encodeSearchCursor } from './search-cursor';
import { staleSearchCursorError } from '../../domain/search/stale-cursor';
import { SegmentBuilder } from './segment-builder';
import { DamagedIndexError, LoadedSegment } from './segment-reader';
import { overlayOf } from './segment-overlay';

/** Brings the index up to date under the project lock (rebuilding only what is still stale once the lock is held). */
export type RepairIndex = () => Promise<void>;

const ATTEMPTS = 3;

/**
 * search_nodes over a project's files: the graph file is opened first and the manifest must describe exactly that
 * file (so a concurrent rewrite, which renames a new file in, cannot mix two graphs: we read the one we opened).
 * A stale or damaged index is repaired under the lock and the search tried again.
 */
export async function searchNdjson(paths: KnowledgePaths, index: SearchIndexFiles, q: KnowledgeSearchQuery, repair: RepairIndex): Promise<KnowledgeSearchPage> {
  const cursor = q.cursor !== undefined ? decodeSearchCursor(q.cursor) : undefined;
  for (let attempt = 1; ; attempt++) {
    if (q.signal?.aborted) throw new CancelledError();
    try {
      return await searchOnce(paths, index, q, cursor);
    } catch (e) {
      if (!(e instanceof DamagedIndexError || e instanceof StaleIndex) || attempt >= ATTEMPTS) {
        if (e instanceof DamagedIndexError || e instanceof StaleIndex) throw toStorageError(e, 'search', index.dir);
        throw e;
      }
      await repair();
    }
  }
}

class StaleIndex extends Error {}

/**
 * The index of the graph file `graph` is, as segments (the manifest's, then the tail's in memory) and their node
 * count. When the graph grew between its stat and the check (an append of this process), once more with a new stat.
 */
async function currentIndex(index: SearchIndexFiles, graph: number) {
  for (let attempt = 1; ; attempt++) {
    const st = fsSync.fstatSync(graph);
    const now = { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
    const state = await index.state(now, (from, to) => readRange(graph, from, to));
    if (state.fresh) {
      const { manifest, tail } = state.view;
      const loaded = await index.load(manifest);
      const t = await tail.snapshot();
      const overlays = loaded.map((seg, i) => overlayOf(manifest.segments[i]!, seg));
      return { manifest, segments: [...loaded, ...t.segments], overlays, persisted: loaded.length, docs: manifest.docs + t.docs };
    }
    const again = fsSync.fstatSync(graph);
    if (attempt >= 2 || (again.size === st.size && again.mtimeMs === st.mtimeMs)) throw new StaleIndex(state.reason);
  }
}

async function searchOnce(
  paths: KnowledgePaths,
  index: SearchIndexFiles,
  q: KnowledgeSearchQuery,
  cursor: ReturnType<typeof decodeSearchCursor> | undefined,
): Promise<KnowledgeSearchPage> {
  // Opened and closed synchronously, like the reads (4 µs against 40 µs and more for the thread pool's round trips).
  let graph: number | undefined;
  try {
    graph = fsSync.openSync(paths.graph, 'r');
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw toStorageError(e, 'read', paths.graph);
  }
  const fds: number[] = [];
  try {
    // No graph: nothing to index (and no index folder is made for a project that does not exist).
    const current = graph !== undefined ? await currentIndex(index, graph) : { manifest: { generation: 0 }, segments: [], overlays: [], persisted: 0, docs: 0 };
    const m = current.manifest;
    // A rebuild (delete, recalculation) or a restore since the first page: its ranking cannot be continued.
    const deletedBytes = sizeOf(paths.deleted);
    if (cursor && (cursor.g !== m.generation || cursor.d !== deletedBytes)) throw staleSearchCursorError();
    const watermark = cursor ? Math.min(cursor.w, current.docs) : current.docs;
    const segments: SearchSegment[] = [];
    let base = 0;
    for (const [i, seg] of current.segments.entries()) {
      // Opened when the search first reads its postings (a pruned search leaves most segments unread); the tail's
      // segments are in memory.
      let fd: number | undefined;
      const open = () => {
        if (fd === undefined) {
          try {
            fds.push((fd = fsSync.openSync(seg.file, 'r')));
          } catch (e) {
            throw new DamagedIndexError(`${seg.file}: ${(e as Error).message}`);
          }
        }
        return fd;
      };
      const overlay = current.overlays[i];
      segments.push({ seg, base, limit: Math.max(0, Math.min(seg.docCount, watermark - base)), ...(i < current.persisted ? { open } : {}), ...(overlay ? { overlay } : {}) });
      base += seg.docCount;
    }
    const deletedNodes: StoredKnowledgeNode[] = [];
    if (q.includeDeleted) {
      const builder = new SegmentBuilder(0, 0);
      await forEachLine(paths.deleted, (text) => {
        const r = text === '' ? undefined : parseRecord(text);
        if (!r) return;
        builder.add(r.nodeData, deletedNodes.length, 0);
        deletedNodes.push(r.nodeData);
      }, { signal: q.signal }).catch((e) => {
        throw toStorageError(e, 'read', paths.deleted);
      });
      const seg = LoadedSegment.fromBuffer(builder.encode(), paths.deleted);
      segments.push({ seg, base: -1, limit: seg.docCount });
    }
    const after = cursor ? { score: cursor.s, ord: cursor.o } : undefined;
    const { hits: page, total, totalExact } = await evaluateQuery(q.query, q, segments, { capacity: q.limit + 1, after, signal: q.signal });
    const more = page.length > q.limit;
    if (more) page.pop();
    // The page's lines: synchronous reads too (ten lines of the graph the page cache holds).
    const out: KnowledgeSearchHit[] = page.map((h) => {
      const s = segments[h.seg]!;
      const afterHit = encodeSearchCursor({ g: m.generation, w: watermark, d: deletedBytes, s: h.score, o: h.ord });
      if (s.base < 0) return { node: deletedNodes[h.local]!, score: h.score, deleted: true, after: afterHit };
      const doc = s.seg.doc(h.local);
      const offset = s.overlay ? s.overlay.offsetOf(doc.offset) : doc.offset;
      const buf = Buffer.alloc(doc.lineLength);
      const bytesRead = fsSync.readSync(graph!, buf, 0, doc.lineLength, offset);
      const node = bytesRead === doc.lineLength ? parseNode(buf.toString('utf8').replace(/\r$/, '')) : undefined;
      if (!node) throw new DamagedIndexError(`${s.seg.file}: names a line at byte ${offset} that is not a node`);
      return { node, score: h.score, deleted: false, after: afterHit };
    });
    const last = page[page.length - 1];
    return {
      hits: out,
      nextCursor: more && last ? encodeSearchCursor({ g: m.generation, w: watermark, d: deletedBytes, s: last.score, o: last.ord }) : null,
      total,
      totalExact,
    };
  } finally {
    for (const fd of fds) fsSync.closeSync(fd);
    if (graph !== undefined) {
      try {
        fsSync.closeSync(graph);
      } catch {
        // Nothing was written through it: a failed close loses nothing.
      }
    }
  }
}

/** A file's size, 0 when it does not exist (a project that never deleted anything). */
function sizeOf(file: string): number {
  try {
    return fsSync.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  } catch (e) {
    throw toStorageError(e, 'read', file);
  }
}
