import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { writeUnpublishedFile } from '../../../../kernel/files/atomic-write';
import { parseNode } from '../ndjson-passes';
import { SEGMENT_MAX_DOCS, type SegmentRef } from './index-manifest';
import { SegmentBuilder } from './segment-builder';
import { DamagedIndexError, LoadedSegment } from './segment-reader';

/**
 * Segments loaded, by path (segments never change once written, and a name is never reused within an index's life:
 * generation, start and end). The ones this process writes go in as they are written when they are small (the
 * newest, merged away soon): the next write or search does not read them back.
 */
export const segmentCache = new Map<string, LoadedSegment>();
const CACHE_WRITTEN_MAX_BYTES = 256 * 1024;

/** What an append wrote: the graph's size before and after it, its inode and mtime after it, and its lines (without their `\n`). */
export interface AppendedLines {
  before: number;
  after: number;
  ino: number;
  mtimeMs: number;
  lines: readonly string[];
}

/**
 * Writes a segment under its own name, `seg-<generation>-<start>-<end>.bin`. Straight to that name, no temp file: no
 * manifest names it until it is written whole, and one torn by a crash is never named (the next commit removes it).
 * Not fsynced: the index is derived and never trusted — a segment lost to a power cut fails its checks and is rebuilt.
 */
export async function writeSegmentFile(dir: string, b: SegmentBuilder, generation: number): Promise<SegmentRef> {
  const name = `seg-${generation}-${b.start}-${b.end}.bin`;
  const file = path.join(dir, name);
  const bytes = b.encode();
  segmentCache.delete(file);
  await writeUnpublishedFile(file, bytes);
  if (bytes.length <= CACHE_WRITTEN_MAX_BYTES) segmentCache.set(file, LoadedSegment.fromBuffer(bytes, file));
  return { file: name, start: b.start, end: b.end, docs: b.size };
}

/** A segment file read whole (a merge decodes all of its postings), checked against its manifest entry. */
export async function readWholeSegment(dir: string, ref: SegmentRef): Promise<LoadedSegment> {
  const file = path.join(dir, ref.file);
  let seg: LoadedSegment;
  try {
    seg = LoadedSegment.fromBuffer(await fs.readFile(file), file);
  } catch (e) {
    throw e instanceof DamagedIndexError ? e : new DamagedIndexError(`${file}: ${(e as Error).message}`);
  }
  const h = seg.header;
  if (h.start !== ref.start || h.end !== ref.end || h.docs !== ref.docs) {
    throw new DamagedIndexError(`${file}: covers bytes ${h.start}-${h.end} (${h.docs} nodes), the manifest says ${ref.start}-${ref.end} (${ref.docs})`);
  }
  return seg;
}

/** One segment of `refs` (consecutive), merged from their postings: no node is parsed or tokenized again. */
export async function mergeSegments(dir: string, refs: readonly SegmentRef[]): Promise<SegmentBuilder> {
  const merged = new SegmentBuilder(refs[0]!.start, refs[0]!.start);
  for (const ref of refs) await merged.appendSegment(await readWholeSegment(dir, ref));
  return merged;
}

/**
 * The segment of lines just appended at `at`, built from the lines in memory (the bytes the append wrote: a `\n`
 * first when the graph did not end with one, then each line and its `\n`); undefined when they are not exactly the
 * appended bytes or too many for one segment (then the graph is read).
 */
export function segmentOfLines(at: number, appended: AppendedLines): SegmentBuilder | undefined {
  if (appended.before !== at || appended.lines.length > SEGMENT_MAX_DOCS) return undefined;
  const lengths = appended.lines.map((l) => Buffer.byteLength(l, 'utf8'));
  const payload = lengths.reduce((n, l) => n + l + 1, 0);
  const gap = appended.after - appended.before - payload;
  if (gap !== 0 && gap !== 1) return undefined;
  const b = new SegmentBuilder(at, appended.after);
  let offset = at + gap;
  appended.lines.forEach((line, i) => {
    const node = parseNode(line);
    if (node) b.add(node, offset, lengths[i]!);
    offset += lengths[i]! + 1;
  });
  return b;
}
