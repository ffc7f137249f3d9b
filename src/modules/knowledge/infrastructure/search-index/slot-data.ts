import * as os from 'node:os';
import { DENSE_POSITION_BLOCK } from './segment-format';
import { termImpact } from '../../domain/search/impact';
import { DamagedIndexError, type LoadedSegment } from './segment-reader';
import { denseDict, denseLayout, popcount } from './dense-term';
import { VarintReader } from './varint';

const LITTLE_ENDIAN = os.endianness() === 'LE';
const NO_POSITIONS = new Int32Array(0);

/**
 * One term of a search in one segment: the bitmap of its documents and, per document, its impact (ts_rank's) — from
 * the code column (dense) or the decoded postings (sparse, walked in ascending order by `p`) — and its positions on
 * demand (a phrase's check). Dense terms are read with one positioned read into the search's own buffer (no copy).
 */
export class SlotData {
  bm: Uint32Array = new Uint32Array(0);
  /** Stored dense (a bitmap and codes) in this segment. */
  dense = false;
  /** Dense and loaded to be scored: each document's code (0: absent), and each code's impact (code 0's: 0). */
  codes: Uint8Array | undefined;
  impact: Float64Array = new Float64Array(0);
  /** Dense: per chunk of the segment, the code of highest impact (0: none). */
  chunkBest: Uint8Array | undefined;
  /** Sparse: ordinals ascending, their impacts and position counts, and the walk's index. */
  ords: Int32Array = new Int32Array(0);
  impacts: Float64Array = new Float64Array(0);
  p = 0;
  private counts: Int32Array | undefined;
  private seg!: LoadedSegment;
  private fd: number | undefined;
  private idx = 0;
  // Positions, decoded on demand.
  private ranks: Uint32Array | undefined;
  private denseBlocks: Map<number, { start: Int32Array; pos: Int32Array }> | undefined;
  private densePositions: { offsets: DataView; stream: Uint8Array } | undefined;
  private sparsePositions: { start: Int32Array; pos: Int32Array } | undefined;
  private buffer = new Uint8Array(0);
  private bits = new Uint32Array(0);

  /**
   * Loads term `idx` of `seg` (`fd` its file, none for a segment in memory); `scored`: with what scoring needs (a
   * dense term's codes), else its documents only (a bigram, a tag filter, a negated word).
   */
  load(seg: LoadedSegment, fd: number | undefined, idx: number, scored = true): this {
    this.seg = seg;
    this.fd = fd;
    this.idx = idx;
    this.p = 0;
    this.ranks = undefined;
    this.denseBlocks = undefined;
    this.densePositions = undefined;
    this.sparsePositions = undefined;
    const docs = seg.docCount;
    const words = Math.ceil(docs / 32);
    this.dense = seg.isDense(idx);
    if (this.dense) {
      // One read: the dictionary (its size not known yet: as long as it can be), the bitmap, the chunks' best
      // codes and, when scored, the code column.
      const [base, end] = seg.postingsRange(idx);
      const most = denseLayout(docs, seg.df(idx), 255);
      const want = Math.min(end - base, scored ? most.offsetsAt : most.codesAt);
      if (this.buffer.length < want) this.buffer = new Uint8Array(Math.max(want, this.buffer.length * 2));
      const buf = this.buffer.subarray(0, want);
      seg.readInto(fd, base, base + want, buf);
      const L = seg.denseLayoutOf(idx, buf[0]! | (buf[1]! << 8) | (buf[2]! << 16) | (buf[3]! << 24));
      const dict = denseDict(buf, L.n);
      this.impact = new Float64Array(L.n + 1);
      for (let c = 1; c <= L.n; c++) this.impact[c] = termImpact(dict[3 * c]!, dict[3 * c + 1]!, dict[3 * c + 2]!);
      if (LITTLE_ENDIAN) this.bm = new Uint32Array(buf.buffer, buf.byteOffset + L.bitmapAt, words);
      else {
        const v = new DataView(buf.buffer, buf.byteOffset + L.bitmapAt, words * 4);
        this.bm = Uint32Array.from({ length: words }, (_, w) => v.getUint32(w * 4, true));
      }
      this.chunkBest = buf.subarray(L.chunksAt, L.chunksAt + L.chunks);
      for (const c of this.chunkBest) if (c > L.n) throw new DamagedIndexError(`${seg.file}: dense term ${idx} names code ${c} of ${L.n} for a chunk`);
      this.codes = scored ? buf.subarray(L.codesAt, L.codesAt + docs) : undefined;
      return this;
    }
    this.codes = undefined;
    this.chunkBest = undefined;
    const df = seg.df(idx);
    const from = seg.blockFrom(idx);
    const to = seg.blockTo(idx);
    const [d0, d1] = seg.docRange(idx, from, to);
    this.ords = new Int32Array(df);
    this.impacts = new Float64Array(df);
    this.counts = new Int32Array(df);
    const r = new VarintReader(seg.readSync(fd, d0, d1));
    let at = 0;
    for (let b = from; b < to; b++) at = seg.decodeDocs(idx, b, r, this.ords, this.impacts, at, this.counts);
    if (this.bits.length < words) this.bits = new Uint32Array(Math.max(words, this.bits.length * 2));
    const bm = (this.bm = this.bits.subarray(0, words));
    bm.fill(0);
    for (let i = 0; i < df; i++) bm[this.ords[i]! >>> 5]! |= 1 << (this.ords[i]! & 31);
    return this;
  }

  /** The positions of document `d` (which holds the term), ascending. */
  positionsOf(d: number): Int32Array {
    return this.dense ? this.densePositionsOf(d) : this.sparsePositionsOf(d);
  }

  private sparsePositionsOf(d: number): Int32Array {
    if (!this.sparsePositions) {
      const seg = this.seg;
      const [p0, p1] = seg.posRange(this.idx, seg.blockFrom(this.idx), seg.blockTo(this.idx));
      this.sparsePositions = decodeCounted(seg, new VarintReader(seg.readSync(this.fd, p0, p1)), this.counts!, 0, this.counts!.length, p1 - p0);
    }
    const ords = this.ords;
    let a = 0;
    let b = ords.length;
    while (a < b) {
      const m = (a + b) >>> 1;
      if (ords[m]! < d) a = m + 1;
      else b = m;
    }
    if (ords[a] !== d) return NO_POSITIONS;
    const { start, pos } = this.sparsePositions;
    return pos.subarray(start[a]!, start[a + 1]!);
  }

  private densePositionsOf(d: number): Int32Array {
    const bm = this.bm;
    if (!((bm[d >>> 5]! >>> (d & 31)) & 1)) return NO_POSITIONS;
    if (!this.ranks) {
      const ranks = (this.ranks = new Uint32Array(bm.length));
      let n = 0;
      for (let w = 0; w < bm.length; w++) (ranks[w] = n), (n += popcount(bm[w]!));
      const seg = this.seg;
      const L = seg.denseLayout(this.fd, this.idx);
      const [base, end] = seg.postingsRange(this.idx);
      const bytes = seg.readSync(this.fd, base + L.offsetsAt, end);
      this.densePositions = { offsets: new DataView(bytes.buffer, bytes.byteOffset, L.positionsAt - L.offsetsAt), stream: bytes.subarray(L.positionsAt - L.offsetsAt) };
      this.denseBlocks = new Map();
    }
    const rank = this.ranks[d >>> 5]! + popcount(bm[d >>> 5]! & ((1 << (d & 31)) - 1));
    const block = Math.floor(rank / DENSE_POSITION_BLOCK);
    let got = this.denseBlocks!.get(block);
    if (!got) {
      const { offsets, stream } = this.densePositions!;
      const df = this.seg.df(this.idx);
      const n = Math.min(DENSE_POSITION_BLOCK, df - block * DENSE_POSITION_BLOCK);
      const from = offsets.getUint32(block * 4, true);
      const to = offsets.getUint32(block * 4 + 4, true);
      if (from > to || to > stream.length) throw new DamagedIndexError(`${this.seg.file}: dense term ${this.idx}'s position offsets do not add up`);
      got = decodeCounted(this.seg, new VarintReader(stream.subarray(from, to)), undefined, 0, n, to - from);
      this.denseBlocks!.set(block, got);
    }
    const k = rank % DENSE_POSITION_BLOCK;
    return got.pos.subarray(got.start[k]!, got.start[k + 1]!);
  }
}

/**
 * Positions of `n` documents from `r`: each document's count from `counts[from + i]`, or (undefined) a varint before
 * its positions; each position a gap from the previous one (the first from 0). `bytes` bounds how many there can be.
 */
function decodeCounted(seg: LoadedSegment, r: VarintReader, counts: Int32Array | undefined, from: number, n: number, bytes: number): { start: Int32Array; pos: Int32Array } {
  const start = new Int32Array(n + 1);
  const pos = new Int32Array(bytes);
  let np = 0;
  try {
    for (let i = 0; i < n; i++) {
      start[i] = np;
      const count = counts ? counts[from + i]! : r.read();
      if (np + count > bytes) throw new RangeError('more positions than bytes');
      let p = 0;
      for (let c = 0; c < count; c++) pos[np++] = p += r.read();
    }
  } catch (e) {
    throw new DamagedIndexError(`${seg.file}: ${(e as Error).message}`);
  }
  start[n] = np;
  return { start, pos: pos.subarray(0, np) };
}
