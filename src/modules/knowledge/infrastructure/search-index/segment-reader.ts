import * as fs from 'node:fs/promises';
import { FIELD_WEIGHTS } from '../../domain/search';
import { VarintReader } from './varint';
import { DOC_BYTES, SEGMENT_FORMAT, SEGMENT_MAGIC, roleOf, type DocEntry, type SegmentHeader } from './segment-format';

/** A segment file that cannot be what the manifest says: the index is rebuilt, never trusted. */
export class DamagedIndexError extends Error {}

/** One term's postings in a segment, decoded: local ordinals ascending, each with its positions. */
export interface Postings {
  ords: Int32Array;
  /** Positions of ords[i] are pos[posStart[i] .. posStart[i+1]). */
  posStart: Int32Array;
  pos: Int32Array;
}

export const EMPTY_POSTINGS: Postings = { ords: new Int32Array(0), posStart: new Int32Array(1), pos: new Int32Array(0) };

/**
 * A segment's header, doc table and term directory, kept in memory (about 40 bytes a document plus its vocabulary);
 * postings stay on disk and are read per query, one positioned read per term.
 */
export class LoadedSegment {
  /** Σ of the documents' weighted lengths (BM25's average length). */
  readonly weightedLength: number;

  private constructor(
    readonly file: string,
    readonly header: SegmentHeader,
    private readonly docs: DataView,
    private readonly termOffsets: Uint32Array,
    private readonly dfs: Uint32Array,
    private readonly postingsAt: number,
  ) {
    let sum = 0;
    for (let i = 0; i < header.docs; i++) sum += this.weightedLengthOf(i);
    this.weightedLength = sum;
  }

  static async load(file: string, expect: { start: number; end: number; docs: number }): Promise<LoadedSegment> {
    try {
      const handle = await fs.open(file, 'r');
      try {
        const head = Buffer.alloc(12);
        await handle.read(head, 0, 12, 0);
        const headerLen = checkHead(head, file);
        const headerBuf = Buffer.alloc(headerLen);
        await handle.read(headerBuf, 0, headerLen, 12);
        const header = parseHeader(headerBuf, file);
        if (header.start !== expect.start || header.end !== expect.end || header.docs !== expect.docs) {
          throw new DamagedIndexError(`${file}: covers bytes ${header.start}-${header.end} (${header.docs} nodes), the manifest says ${expect.start}-${expect.end} (${expect.docs})`);
        }
        const dirLen = directoryLength(header);
        const dir = Buffer.alloc(dirLen);
        const { bytesRead } = await handle.read(dir, 0, dirLen, 12 + headerLen);
        if (bytesRead !== dirLen) throw new DamagedIndexError(`${file}: cut short`);
        const { size } = await handle.stat();
        return LoadedSegment.fromParts(file, header, dir, 12 + headerLen + dirLen, size);
      } finally {
        await handle.close();
      }
    } catch (e) {
      if (e instanceof DamagedIndexError) throw e;
      throw new DamagedIndexError(`${file}: ${(e as Error).message}`);
    }
  }

  /** A segment held in memory whole (the deleted nodes a search with includeDeleted looks at). */
  static fromBuffer(buf: Buffer, name: string): LoadedSegment {
    const headerLen = checkHead(buf, name);
    const header = parseHeader(buf.subarray(12, 12 + headerLen), name);
    const dirLen = directoryLength(header);
    const seg = LoadedSegment.fromParts(name, header, buf.subarray(12 + headerLen, 12 + headerLen + dirLen), 12 + headerLen + dirLen, buf.length);
    seg.memory = buf;
    return seg;
  }

  private memory: Buffer | undefined;

  private static fromParts(file: string, header: SegmentHeader, dir: Buffer, postingsAt: number, size: number): LoadedSegment {
    const docs = new DataView(dir.buffer, dir.byteOffset, header.docs * DOC_BYTES);
    const offsetsAt = header.docs * DOC_BYTES;
    const termOffsets = new Uint32Array(header.terms.length + 1);
    for (let i = 0; i <= header.terms.length; i++) termOffsets[i] = dir.readUInt32LE(offsetsAt + i * 4);
    const dfAt = offsetsAt + (header.terms.length + 1) * 4;
    const dfs = new Uint32Array(header.terms.length);
    for (let i = 0; i < header.terms.length; i++) dfs[i] = dir.readUInt32LE(dfAt + i * 4);
    if (postingsAt + termOffsets[header.terms.length]! !== size) {
      throw new DamagedIndexError(`${file}: holds ${size} bytes, its directory says ${postingsAt + termOffsets[header.terms.length]!}`);
    }
    return new LoadedSegment(file, header, docs, termOffsets, dfs, postingsAt);
  }

  get docCount(): number {
    return this.header.docs;
  }

  doc(i: number): DocEntry {
    const at = i * DOC_BYTES;
    const v = this.docs;
    return {
      offset: v.getFloat64(at, true),
      createdAt: v.getFloat64(at + 8, true),
      lineLength: v.getUint32(at + 16, true),
      thoughtEnd: v.getUint32(at + 20, true),
      tagsEnd: v.getUint32(at + 24, true),
      end: v.getUint32(at + 28, true),
      role: roleOf(v.getUint8(at + 32)),
    };
  }

  createdAt(i: number): number {
    return this.docs.getFloat64(i * DOC_BYTES + 8, true);
  }

  roleAt(i: number): string {
    return roleOf(this.docs.getUint8(i * DOC_BYTES + 32));
  }

  thoughtEndAt(i: number): number {
    return this.docs.getUint32(i * DOC_BYTES + 20, true);
  }

  tagsEndAt(i: number): number {
    return this.docs.getUint32(i * DOC_BYTES + 24, true);
  }

  /** Thought words × 1 + tag words × 0.4 + artifact words × 0.2. */
  weightedLengthOf(i: number): number {
    const at = i * DOC_BYTES;
    const t = this.docs.getUint32(at + 20, true);
    const g = this.docs.getUint32(at + 24, true);
    const e = this.docs.getUint32(at + 28, true);
    return t * FIELD_WEIGHTS.thought + (g - t) * FIELD_WEIGHTS.tags + (e - g) * FIELD_WEIGHTS.artifacts;
  }

  /** Index of `term` in the sorted directory, or -1. */
  termIndex(term: string): number {
    const terms = this.header.terms;
    let lo = 0;
    let hi = terms.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const t = terms[mid]!;
      if (t === term) return mid;
      if (t < term) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Terms starting with `prefix`, at most `max`, in order. */
  termsWithPrefix(prefix: string, max: number): string[] {
    const terms = this.header.terms;
    let lo = 0;
    let hi = terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (terms[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    const out: string[] = [];
    for (let i = lo; i < terms.length && out.length < max && terms[i]!.startsWith(prefix); i++) out.push(terms[i]!);
    return out;
  }

  df(termIdx: number): number {
    return this.dfs[termIdx]!;
  }

  /** Reads and decodes one term's postings. */
  async postings(handle: fs.FileHandle | undefined, termIdx: number): Promise<Postings> {
    const from = this.termOffsets[termIdx]!;
    const len = this.termOffsets[termIdx + 1]! - from;
    let buf: Buffer;
    if (this.memory) buf = this.memory.subarray(this.postingsAt + from, this.postingsAt + from + len);
    else {
      if (!handle) throw new DamagedIndexError(`${this.file}: no file to read postings from`);
      buf = Buffer.alloc(len);
      const { bytesRead } = await handle.read(buf, 0, len, this.postingsAt + from);
      if (bytesRead !== len) throw new DamagedIndexError(`${this.file}: postings cut short`);
    }
    const n = this.dfs[termIdx]!;
    const ords = new Int32Array(n);
    const posStart = new Int32Array(n + 1);
    // Positions never outnumber the bytes that encode them.
    const positions = new Int32Array(len);
    let np = 0;
    const r = new VarintReader(buf);
    let ord = -1;
    try {
      for (let i = 0; i < n; i++) {
        ord += r.read();
        ords[i] = ord;
        posStart[i] = np;
        const count = r.read();
        let p = 0;
        for (let k = 0; k < count; k++) {
          p += r.read();
          positions[np++] = p;
        }
      }
    } catch (e) {
      throw new DamagedIndexError(`${this.file}: ${(e as Error).message}`);
    }
    posStart[n] = np;
    if (ord >= this.header.docs) throw new DamagedIndexError(`${this.file}: a posting names node ${ord} of ${this.header.docs}`);
    return { ords, posStart, pos: positions.subarray(0, np) };
  }
}

function checkHead(head: Buffer, file: string): number {
  if (head.length < 12 || head.readUInt32LE(0) !== SEGMENT_MAGIC || head.readUInt32LE(4) !== SEGMENT_FORMAT) {
    throw new DamagedIndexError(`${file}: not a search segment of format ${SEGMENT_FORMAT}`);
  }
  return head.readUInt32LE(8);
}

function directoryLength(header: SegmentHeader): number {
  return header.docs * DOC_BYTES + (header.terms.length + 1) * 4 + header.terms.length * 4;
}

function parseHeader(buf: Buffer, file: string): SegmentHeader {
  let h: unknown;
  try {
    h = JSON.parse(buf.toString('utf8'));
  } catch {
    throw new DamagedIndexError(`${file}: header is not JSON`);
  }
  const v = h as Partial<SegmentHeader>;
  if (typeof v !== 'object' || v === null || typeof v.start !== 'number' || typeof v.end !== 'number' || typeof v.docs !== 'number' || !Array.isArray(v.terms)) {
    throw new DamagedIndexError(`${file}: header lacks start, end, docs or terms`);
  }
  return v as SegmentHeader;
}
