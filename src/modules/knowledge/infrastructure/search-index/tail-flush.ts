import { mergeStart, SEGMENT_MAX_DOCS, type SegmentRef } from './index-manifest';
import type { TailPart } from './index-tail';
import { SegmentBuilder } from './segment-builder';
import { readWholeSegment, writeSegmentBytes, writeSegmentFile } from './segment-files';

/** A part of what a flush leaves, in graph order: a segment the manifest names, or a part of the tail. */
export type FlushPart = { kind: 'segment'; ref: SegmentRef } | TailPart;

function docsOf(p: FlushPart): number {
  return p.kind === 'segment' ? p.ref.docs : p.kind === 'piece' ? p.piece.docs : p.builder.size;
}

function startOf(p: FlushPart): number {
  return p.kind === 'segment' ? p.ref.start : p.kind === 'piece' ? p.piece.start : p.builder.start;
}

/**
 * Which parts become one segment each, in graph order: the tail's parts in runs of at most SEGMENT_MAX_DOCS nodes, then
 * the newest merged with the ones before as {@link mergeStart} says, as long as it says so — the segments writing each
 * run and then merging the files one by one gave, planned first, so that each is encoded once: a run merged with the
 * segments before it is never encoded alone, and the tail's open builder goes into a merge as accumulated postings.
 */
export function planFlush(segments: readonly SegmentRef[], tail: readonly TailPart[]): FlushPart[][] {
  const groups: FlushPart[][] = segments.map((ref) => [{ kind: 'segment', ref }]);
  const docs = segments.map((s) => s.docs);
  let run: FlushPart[] | undefined;
  for (const p of tail) {
    const n = docsOf(p);
    if (run && docs[docs.length - 1]! + n <= SEGMENT_MAX_DOCS) {
      run.push(p);
      docs[docs.length - 1]! += n;
    } else {
      groups.push((run = [p]));
      docs.push(n);
    }
  }
  for (let from = mergeStart(docs); from >= 0; from = mergeStart(docs)) {
    groups.splice(from, groups.length - from, groups.slice(from).flat());
    docs.splice(from, docs.length - from, docs.slice(from).reduce((a, b) => a + b, 0));
  }
  return groups;
}

/**
 * Writes the plan's segments and returns the list the manifest names: a segment on disk left alone stays as it is, a
 * piece of the tail alone is written as encoded, anything else is one builder fed from its parts (a segment's postings
 * decoded, the open builder's copied) and encoded once. `beforeWrite` runs before each file is written (the lock check).
 */
export async function writeFlush(dir: string, plan: readonly FlushPart[][], generation: number, beforeWrite: () => void): Promise<SegmentRef[]> {
  const out: SegmentRef[] = [];
  for (const group of plan) {
    const only = group.length === 1 ? group[0]! : undefined;
    if (only?.kind === 'segment') {
      out.push(only.ref);
      continue;
    }
    let ref: Promise<SegmentRef>;
    if (only?.kind === 'piece') {
      beforeWrite();
      ref = writeSegmentBytes(dir, only.piece, generation);
    } else if (only?.kind === 'open') {
      beforeWrite();
      ref = writeSegmentFile(dir, only.builder, generation);
    } else {
      const start = startOf(group[0]!);
      const merged = new SegmentBuilder(start, start);
      for (const p of group) {
        if (p.kind === 'segment') await merged.appendSegment(await readWholeSegment(dir, p.ref));
        else if (p.kind === 'piece') await merged.appendSegment(p.piece.seg);
        else merged.appendBuilder(p.builder);
      }
      beforeWrite();
      ref = writeSegmentFile(dir, merged, generation);
    }
    out.push(await ref);
  }
  return out;
}
