import * as fs from 'node:fs/promises';
import * as fsSync from 'node:fs';
import { VarintReader } from './varint';
import { DamagedIndexError, checkHead, directoryLength, parseHeader } from './segment-header';
import { DOC_BYTES, roleOf, type DocEntry, type Postings, type SegmentHeader } from './segment-format';
import { decodeDenseWhole, denseLayout, type DenseLayout } from './dense-term';
import { termImpact } from '../../domain/search/impact';
import { parseDirectory, SegmentDirectory, type DirectoryParts } from './segment-directory';

export { DamagedIndexError } from './segment-header';

/** A segment's documents as far as where their lines are: its file, how many, each one's stored offset. */
export interface DocOffsets {
  readonly file: string;
  readonly docCount: number;
  offsetAt(i: number): number;
}
export { type Postings } from './segment-format';

/** A segment file's head and header, read and checked against what the manifest says the segment covers. */
async function readCheckedHeader(
  handle: fs.FileHandle,
  file: string,
  expect: { start: number; end: number; docs: number },
): Promise<{ header: SegmentHeader; headerLen: number }> {
  const head = Buffer.alloc(12);
  await handle.read(head, 0, 12, 0);
  const headerLen = checkHead(head, file);
  const headerBuf = Buffer.alloc(headerLen);
  await handle.read(headerBuf, 0, headerLen, 12);
  const header = parseHeader(headerBuf, file);
  if (header.start !== expect.start || header.end !== expect.end || header.docs !== expect.docs) {
    throw new DamagedIndexError(`${file}: covers bytes ${header.start}-${header.end} (${header.docs} nodes), the manifest says ${expect.start}-${expect.end} (${expect.docs})`);
  }
  return { header, headerLen };
}

/**
 * A segment's header, doc table and term directory (segment-directory.ts), kept in memory (about 40 bytes a document plus its vocabulary);
 * postings stay on disk and are read per query, one positioned read per term.
 */
export class LoadedSegment extends SegmentDirectory {
  private constructor(
    file: string,
    header: SegmentHeader,
    private readonly docs: DataView,
    parts: DirectoryParts,
    private readonly postingsAt: number,
  ) {
    super(file, header, parts);
  }

  static async load(file: string, expect: { start: number; end: number; docs: number }): Promise<LoadedSegment> {
    try {
      const handle = await fs.open(file, 'r');
      try {
        const { header, headerLen } = await readCheckedHeader(handle, file, expect);
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

  /**
   * Only the stored offsets of a segment file's documents (its header and doc table read, nothing else kept): what a
   * rewrite of the graph needs of a segment this process has not loaded (search-index.ts, afterRewrite), one segment
   * at a time, so a delete's memory stays that of its streaming rewrite.
   */
  static async loadDocOffsets(file: string, expect: { start: number; end: number; docs: number }): Promise<DocOffsets> {
    try {
      const handle = await fs.open(file, 'r');
      try {
        const { header, headerLen } = await readCheckedHeader(handle, file, expect);
        const table = Buffer.alloc(header.docs * DOC_BYTES);
        const { bytesRead } = await handle.read(table, 0, table.length, 12 + headerLen);
        if (bytesRead !== table.length) throw new DamagedIndexError(`${file}: cut short`);
        const view = new DataView(table.buffer, table.byteOffset, table.length);
        return { file, docCount: header.docs, offsetAt: (i) => view.getFloat64(i * DOC_BYTES, true) };
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
    const parts = parseDirectory(file, header, dir, postingsAt, size);
    return new LoadedSegment(file, header, new DataView(dir.buffer, dir.byteOffset, header.docs * DOC_BYTES), parts, postingsAt);
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

  /** The stored offset of document i's line (a rewrite since may have moved it: SegmentOverlay.offsetOf). */
  offsetAt(i: number): number {
    return this.docs.getFloat64(i * DOC_BYTES, true);
  }

  createdAt(i: number): number {
    return this.docs.getFloat64(i * DOC_BYTES + 8, true);
  }

  roleAt(i: number): string {
    return roleOf(this.docs.getUint8(i * DOC_BYTES + 32));
  }

  /** The role's code (segment-format.ts roleCode). */
  roleCodeAt(i: number): number {
    return this.docs.getUint8(i * DOC_BYTES + 32);
  }

  thoughtEndAt(i: number): number {
    return this.docs.getUint32(i * DOC_BYTES + 20, true);
  }

  tagsEndAt(i: number): number {
    return this.docs.getUint32(i * DOC_BYTES + 24, true);
  }

  /** Where a dense term's parts are in its postings (its dictionary's size read first: one small read). */
  denseLayout(fd: number | undefined, termIdx: number): DenseLayout {
    const base = this.termOffsets[termIdx]!;
    return this.denseLayoutOf(termIdx, this.readSync(fd, base, base + 4).readUInt32LE(0));
  }

  /** The layout of dense term `termIdx` whose dictionary holds `n` codes, checked against its postings' size. */
  denseLayoutOf(termIdx: number, n: number): DenseLayout {
    const layout = denseLayout(this.header.docs, this.dfs[termIdx]!, n);
    if (n < 1 || n > 255 || this.termOffsets[termIdx]! + layout.positionsAt > this.termOffsets[termIdx + 1]!) throw new DamagedIndexError(`${this.file}: dense term ${termIdx} does not add up`);
    return layout;
  }

  /**
   * Bytes [from, to) of the postings, from memory or by one synchronous positioned read of `fd`. A search reads a few
   * blocks of a few hundred bytes from files the page cache holds: a synchronous read costs 1–2 µs there, a
   * thread-pool round trip 25 µs or more on a loaded machine, which is what kept a search's first page slow.
   */
  readSync(fd: number | undefined, from: number, to: number): Buffer {
    if (this.memory) return this.memory.subarray(this.postingsAt + from, this.postingsAt + to);
    if (fd === undefined) throw new DamagedIndexError(`${this.file}: no file to read postings from`);
    const buf = Buffer.allocUnsafe(to - from);
    let bytesRead: number;
    try {
      bytesRead = fsSync.readSync(fd, buf, 0, to - from, this.postingsAt + from);
    } catch (e) {
      throw new DamagedIndexError(`${this.file}: ${(e as Error).message}`);
    }
    if (bytesRead !== to - from) throw new DamagedIndexError(`${this.file}: postings cut short`);
    return buf;
  }

  /** Bytes [from, to) of the postings into `into` (exactly that long): copied from memory, or one synchronous positioned read. */
  readInto(fd: number | undefined, from: number, to: number, into: Uint8Array): void {
    if (this.memory) {
      into.set(this.memory.subarray(this.postingsAt + from, this.postingsAt + to));
      return;
    }
    if (fd === undefined) throw new DamagedIndexError(`${this.file}: no file to read postings from`);
    let bytesRead: number;
    try {
      bytesRead = fsSync.readSync(fd, into, 0, to - from, this.postingsAt + from);
    } catch (e) {
      throw new DamagedIndexError(`${this.file}: ${(e as Error).message}`);
    }
    if (bytesRead !== to - from) throw new DamagedIndexError(`${this.file}: postings cut short`);
  }

  /** Bytes [from, to) of the postings (from memory, or one positioned read). */
  async read(handle: fs.FileHandle | undefined, from: number, to: number): Promise<Buffer> {
    if (this.memory) return this.memory.subarray(this.postingsAt + from, this.postingsAt + to);
    if (!handle) throw new DamagedIndexError(`${this.file}: no file to read postings from`);
    const buf = Buffer.allocUnsafe(to - from);
    const { bytesRead } = await handle.read(buf, 0, to - from, this.postingsAt + from);
    if (bytesRead !== to - from) throw new DamagedIndexError(`${this.file}: postings cut short`);
    return buf;
  }

  /**
   * Decodes block `b`'s document stream from `r` (at the block's start) into `ords`/`impacts` from index `at`; returns
   * the index after the last. `counts` (optional) gets each document's number of positions.
   */
  decodeDocs(termIdx: number, b: number, r: VarintReader, ords: Int32Array, impacts: Float64Array, at: number, counts?: Int32Array): number {
    const n = this.blockSize(termIdx, b);
    let ord = b === this.blockStart[termIdx]! ? -1 : this.blockLast(b - 1);
    try {
      for (let i = 0; i < n; i++) {
        ord += r.read();
        const code = r.read();
        const nt = code >>> 2;
        const ng = code & 1 ? r.read() : 0;
        const na = code & 2 ? r.read() : 0;
        ords[at + i] = ord;
        impacts[at + i] = termImpact(nt, ng, na);
        if (counts) counts[at + i] = nt + ng + na;
      }
    } catch (e) {
      throw new DamagedIndexError(`${this.file}: ${(e as Error).message}`);
    }
    if (ord !== this.blockLast(b) || ord >= this.header.docs) throw new DamagedIndexError(`${this.file}: block ${b} does not end at its last node`);
    return at + n;
  }

  /** Reads and decodes one term's postings whole, positions too. */
  async postings(handle: fs.FileHandle | undefined, termIdx: number): Promise<Postings> {
    if (this.isDense(termIdx)) {
      const [a, b] = this.postingsRange(termIdx);
      return decodeDenseWhole(this.file, this.header.docs, this.dfs[termIdx]!, termIdx, await this.read(handle, a, b));
    }
    const from = this.blockStart[termIdx]!;
    const to = this.blockStart[termIdx + 1]!;
    const [d0, d1] = this.docRange(termIdx, from, to);
    const [p0, p1] = this.posRange(termIdx, from, to);
    const buf = await this.read(handle, d0, p1);
    const n = this.dfs[termIdx]!;
    const ords = new Int32Array(n);
    const impacts = new Float64Array(n);
    const counts = new Int32Array(n);
    const r = new VarintReader(buf.subarray(0, d1 - d0));
    let at = 0;
    for (let b = from; b < to; b++) at = this.decodeDocs(termIdx, b, r, ords, impacts, at, counts);
    const posStart = new Int32Array(n + 1);
    // Positions never outnumber the bytes that encode them.
    const positions = new Int32Array(p1 - p0);
    const pr = new VarintReader(buf.subarray(p0 - d0));
    let np = 0;
    try {
      for (let i = 0; i < n; i++) {
        posStart[i] = np;
        let p = 0;
        for (let k = 0; k < counts[i]!; k++) positions[np++] = p += pr.read();
      }
    } catch (e) {
      throw new DamagedIndexError(`${this.file}: ${(e as Error).message}`);
    }
    posStart[n] = np;
    return { ords, posStart, pos: positions.subarray(0, np) };
  }
}
