import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { writeUnpublishedFile } from '../../../../kernel/files/atomic-write';
import type { SegmentRef } from './index-manifest';
import { SegmentBuilder } from './segment-builder';
import { DamagedIndexError, LoadedSegment } from './segment-reader';

/**
 * Segments loaded, by path (segments never change once written, and a name is never reused within an index's life:
 * generation, start and end). The ones this process writes go in as they are written when they are small (the
 * newest, merged away soon): the next write or search does not read them back.
 */
export const segmentCache = new Map<string, LoadedSegment>();
const CACHE_WRITTEN_MAX_BYTES = 256 * 1024;

/**
 * Writes a segment under its own name, `seg-<generation>-<start>-<end>.bin`. Straight to that name, no temp file: no
 * manifest names it until it is written whole, and one torn by a crash is never named (the next commit removes it).
 * Not fsynced: the index is derived and never trusted — a segment lost to a power cut fails its checks and is rebuilt.
 */
export async function writeSegmentFile(dir: string, b: SegmentBuilder, generation: number): Promise<SegmentRef> {
  return writeSegmentBytes(dir, { start: b.start, end: b.end, docs: b.size, bytes: b.encode() }, generation);
}

/** {@link writeSegmentFile} of a segment already encoded (a flushed piece of the tail). */
export async function writeSegmentBytes(dir: string, s: { start: number; end: number; docs: number; bytes: Buffer; deleted?: readonly number[] }, generation: number): Promise<SegmentRef> {
  const name = `seg-${generation}-${s.start}-${s.end}.bin`;
  const file = path.join(dir, name);
  segmentCache.delete(file);
  await writeUnpublishedFile(file, s.bytes);
  if (s.bytes.length <= CACHE_WRITTEN_MAX_BYTES) segmentCache.set(file, LoadedSegment.fromBuffer(s.bytes, file));
  return { file: name, start: s.start, end: s.end, docs: s.docs, ...(s.deleted?.length ? { deleted: [...s.deleted] } : {}) };
}

/** What a flush leaves for one group of its plan (tail-flush.ts): a segment on disk kept as it is, or a segment's bytes to write. */
export type EncodedGroup = { kind: 'kept'; ref: SegmentRef } | { kind: 'bytes'; start: number; end: number; docs: number; bytes: Buffer; deleted?: number[] };

/** A segment file read whole (a merge decodes all of its postings), checked against its manifest entry. */
export async function readWholeSegment(dir: string, ref: SegmentRef): Promise<LoadedSegment> {
  return checkedSegment(dir, ref, await readSegmentBytes(dir, ref));
}

/** A segment file's bytes (a flush in the background reads them from its start, beside what it encodes first). */
export function readSegmentBytes(dir: string, ref: SegmentRef): Promise<Buffer> {
  const file = path.join(dir, ref.file);
  return fs.readFile(file).catch((e: Error) => {
    throw new DamagedIndexError(`${file}: ${e.message}`);
  });
}

/** A segment file's bytes loaded and checked against its manifest entry. */
export function checkedSegment(dir: string, ref: SegmentRef, bytes: Buffer): LoadedSegment {
  const file = path.join(dir, ref.file);
  let seg: LoadedSegment;
  try {
    seg = LoadedSegment.fromBuffer(bytes, file);
  } catch (e) {
    throw e instanceof DamagedIndexError ? e : new DamagedIndexError(`${file}: ${(e as Error).message}`);
  }
  const h = seg.header;
  // A rewrite since it was written moved its bytes: the file still says the ones it was written for (SegmentRef.header).
  const [start, end] = ref.header ?? [ref.start, ref.end];
  if (h.start !== start || h.end !== end || h.docs !== ref.docs) {
    throw new DamagedIndexError(`${file}: covers bytes ${h.start}-${h.end} (${h.docs} nodes), the manifest says ${start}-${end} (${ref.docs})`);
  }
  return seg;
}
