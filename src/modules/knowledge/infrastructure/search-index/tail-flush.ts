import { mergeStart, SEGMENT_MAX_DOCS, type SegmentRef } from './index-manifest';
import type { TailPart } from './index-tail';
import { SegmentBuilder } from './segment-builder';
import { checkedSegment, readSegmentBytes, writeSegmentBytes, type EncodedGroup } from './segment-files';
import type { Pause } from './flush-job';
import type { Steps } from './steps';
import { overlayOf } from './segment-overlay';

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


/** Runs steps, awaiting `pause` between them when it asks to. */
async function run<T>(steps: Steps<T>, pause: Pause): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    const p = pause();
    if (p) await p;
  }
}

/**
 * The plan's segments encoded, nothing written: a segment on disk left alone is kept, a piece of the tail alone is
 * taken as encoded, anything else is one builder fed from its parts (a segment's postings decoded, the open builder's
 * copied) and encoded once. `pause` is awaited between steps when it asks to (a flush in the background,
 * flush-job.ts); segments on disk are only read (they never change once written).
 */
export async function encodeFlush(dir: string, plan: readonly FlushPart[][], pause: Pause = () => undefined): Promise<EncodedGroup[]> {
  // The segments on disk that merges take, read from the start (on the thread pool) while the first steps encode.
  const reads = new Map<string, Promise<Buffer>>();
  for (const group of plan) {
    if (group.length > 1) for (const p of group) if (p.kind === 'segment') reads.set(p.ref.file, readSegmentBytes(dir, p.ref));
  }
  for (const r of reads.values()) r.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
  const out: EncodedGroup[] = [];
  for (const group of plan) {
    const only = group.length === 1 ? group[0]! : undefined;
    if (only?.kind === 'segment') out.push({ kind: 'kept', ref: only.ref });
    else if (only?.kind === 'piece') out.push({ kind: 'bytes', ...only.piece });
    else if (only?.kind === 'open') out.push({ kind: 'bytes', start: only.builder.start, end: only.builder.end, docs: only.builder.size, bytes: await run(only.builder.encodeSteps(), pause) });
    else {
      const start = startOf(group[0]!);
      const merged = new SegmentBuilder(start, start);
      for (const p of group) {
        if (p.kind === 'segment') {
          const bytes = await reads.get(p.ref.file)!;
          // Loading (the header parsed) is a step of its own.
          const q = pause();
          if (q) await q;
          // A segment a rewrite marked: its offsets mapped, its deleted documents carried as marks (segment-builder.ts).
          const seg = checkedSegment(dir, p.ref, bytes);
          await run(merged.appendSegmentSteps(seg, { overlay: overlayOf(p.ref, seg), start: p.ref.start, end: p.ref.end }), pause);
        }
        else if (p.kind === 'piece') await run(merged.appendSegmentSteps(p.piece.seg), pause);
        else await run(merged.appendBuilderSteps(p.builder), pause);
      }
      out.push({ kind: 'bytes', start: merged.start, end: merged.end, docs: merged.size, bytes: await run(merged.encodeSteps(), pause), ...(merged.deleted.length ? { deleted: merged.deleted } : {}) });
    }
  }
  return out;
}

/** Writes the encoded groups' segments; the list the manifest names. `beforeWrite` runs before each file (the lock check). */
export async function writeEncoded(dir: string, groups: readonly EncodedGroup[], generation: number, beforeWrite: () => void): Promise<SegmentRef[]> {
  const out: SegmentRef[] = [];
  for (const g of groups) {
    if (g.kind === 'kept') {
      out.push(g.ref);
      continue;
    }
    beforeWrite();
    out.push(await writeSegmentBytes(dir, g, generation));
  }
  return out;
}

/** Writes the plan's segments ({@link encodeFlush}, then {@link writeEncoded}) and returns the list the manifest names. */
export async function writeFlush(dir: string, plan: readonly FlushPart[][], generation: number, beforeWrite: () => void): Promise<SegmentRef[]> {
  return writeEncoded(dir, await encodeFlush(dir, plan), generation, beforeWrite);
}
