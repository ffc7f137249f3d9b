import type { HeldLock } from '../../../../kernel/files/file-lock';
import { indexGraph } from './index-build';
import type { SegmentRef } from './index-manifest';
import { movedOffset, type RewriteTrack } from './rewrite-map';
import { overlayOf } from './segment-overlay';
import { DamagedIndexError, type DocOffsets } from './segment-reader';

/** A segment left with at least this share of its documents deleted is indexed again from the graph (its space back). */
const REINDEX_DELETED_SHARE = 0.5;

/**
 * The manifest's segments after a rewrite of the graph (search-index.ts, afterRewrite): each segment's live
 * documents (`docsOf`: their stored offsets, read one segment at a time) walked in graph order beside the rewrite's removed lines and moves — a document whose line was removed
 * is marked deleted, the others get their new offsets as a shift map (a pair wherever the delta changes: as many as
 * the segment has changed places, not documents); nothing is tokenized. A segment holding a rewritten line, or with
 * half of its documents deleted, is indexed again from the new file's bytes of its range (`generation` names the files
 * written); one left with no bytes is dropped. A removed line no segment holds is a DamagedIndexError (the caller
 * rebuilds): the rewrite and the index do not describe the same file.
 */
export async function followRewrite(
  graph: string,
  dir: string,
  lock: HeldLock,
  refs: readonly SegmentRef[],
  docsOf: (ref: SegmentRef) => Promise<DocOffsets>,
  rw: RewriteTrack,
  generation: number,
): Promise<SegmentRef[]> {
  const { moves, removed, replaced } = rw;
  const out: SegmentRef[] = [];
  let r = 0;
  let q = 0;
  for (let i = 0; i < refs.length; i++) {
    const ref = refs[i]!;
    const start = movedOffset(moves, ref.start);
    const end = movedOffset(moves, ref.end);
    const from = r;
    while (r < removed.length && removed[r]! < ref.end) r++;
    let rewrittenHere = false;
    while (q < replaced.length && replaced[q]! < ref.end) {
      rewrittenHere = true;
      q++;
    }
    if (rewrittenHere) {
      if (start < end) out.push(...(await indexGraph(graph, dir, lock, start, generation, end)));
      continue;
    }
    const seg = await docsOf(ref);
    const overlay = overlayOf(ref, seg);
    const n = seg.docCount;
    const deleted: number[] = [];
    const shift: number[] = [];
    let delta = 0;
    let k = from;
    let m = 0;
    let moved = 0;
    let matched = 0;
    for (let d = 0; d < n; d++) {
      if (overlay?.isDeleted(d)) {
        deleted.push(d);
        continue;
      }
      const stored = seg.offsetAt(d);
      const cur = overlay ? overlay.offsetOf(stored) : stored;
      while (k < r && removed[k]! < cur) k++;
      if (k < r && removed[k] === cur) {
        deleted.push(d);
        matched++;
        k++;
        continue;
      }
      // The moves walked beside the documents (offsets ascending): the delta of the last pair at or below `cur`.
      while (m < moves.length && moves[m]! <= cur) {
        moved = moves[m + 1]!;
        m += 2;
      }
      const dl = cur + moved - stored;
      if (dl !== delta) {
        shift.push(stored, dl);
        delta = dl;
      }
    }
    if (matched !== r - from) throw new DamagedIndexError(`${seg.file}: the rewrite removed lines the index does not hold`);
    if (deleted.length >= n * REINDEX_DELETED_SHARE && deleted.length > 0) {
      if (start < end) out.push(...(await indexGraph(graph, dir, lock, start, generation, end)));
      continue;
    }
    const next: SegmentRef = { file: ref.file, start, end, docs: ref.docs };
    if (deleted.length) next.deleted = deleted;
    if (shift.length) next.shift = shift;
    const header = ref.header ?? [ref.start, ref.end];
    if (header[0] !== start || header[1] !== end) next.header = header;
    out.push(next);
  }
  return out;
}
