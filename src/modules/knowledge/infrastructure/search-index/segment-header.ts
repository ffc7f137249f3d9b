import { BLOCK_BYTES, DOC_BYTES, SEGMENT_FORMAT, SEGMENT_MAGIC, type SegmentHeader } from './segment-format';

/** A segment file that cannot be what the manifest says: the index is rebuilt, never trusted. */
export class DamagedIndexError extends Error {}

/** Checks a segment's magic and format; returns its header's length. */
export function checkHead(head: Buffer, file: string): number {
  if (head.length < 12 || head.readUInt32LE(0) !== SEGMENT_MAGIC || head.readUInt32LE(4) !== SEGMENT_FORMAT) {
    throw new DamagedIndexError(`${file}: not a search segment of format ${SEGMENT_FORMAT}`);
  }
  return head.readUInt32LE(8);
}

/** Bytes of the directory after the header: doc table, term offsets, dfs, block starts, block table. */
export function directoryLength(header: SegmentHeader): number {
  return header.docs * DOC_BYTES + (header.terms.length + 1) * 8 + header.terms.length * 4 + header.blocks * BLOCK_BYTES;
}

/** The header's JSON, checked for the fields a segment needs. */
export function parseHeader(buf: Buffer, file: string): SegmentHeader {
  let h: unknown;
  try {
    h = JSON.parse(buf.toString('utf8'));
  } catch {
    throw new DamagedIndexError(`${file}: header is not JSON`);
  }
  const v = h as Partial<SegmentHeader>;
  if (typeof v !== 'object' || v === null || typeof v.start !== 'number' || typeof v.end !== 'number' || typeof v.docs !== 'number' || !Array.isArray(v.terms) || typeof v.blocks !== 'number') {
    throw new DamagedIndexError(`${file}: header lacks start, end, docs, terms or blocks`);
  }
  return v as SegmentHeader;
}
