import { BLOCK_BYTES, BLOCK_POSTINGS, DOC_BYTES, type SegmentHeader } from './segment-format';
import { DamagedIndexError } from './segment-header';
import { denseLayout } from './dense-term';

/** A segment's term directory as read from its file: where each term's postings start, its frequency, its blocks. */
export interface DirectoryParts {
  termOffsets: Uint32Array;
  dfs: Uint32Array;
  blockStart: Uint32Array;
  blocks: DataView;
}

/**
 * Parses and checks the term directory of a segment whose postings start at `postingsAt` in a file of `size` bytes
 * (`dir`: the bytes after the header, doc table first): every count, block and offset must add up, or the segment
 * is damaged (and rebuilt, never trusted).
 */
export function parseDirectory(file: string, header: SegmentHeader, dir: Buffer, postingsAt: number, size: number): DirectoryParts {
    const terms = header.terms.length;
    const offsetsAt = header.docs * DOC_BYTES;
    const termOffsets = new Uint32Array(terms + 1);
    for (let i = 0; i <= terms; i++) termOffsets[i] = dir.readUInt32LE(offsetsAt + i * 4);
    const dfAt = offsetsAt + (terms + 1) * 4;
    const dfs = new Uint32Array(terms);
    for (let i = 0; i < terms; i++) dfs[i] = dir.readUInt32LE(dfAt + i * 4);
    const blockStartAt = dfAt + terms * 4;
    const blockStart = new Uint32Array(terms + 1);
    for (let i = 0; i <= terms; i++) blockStart[i] = dir.readUInt32LE(blockStartAt + i * 4);
    const blocksAt = blockStartAt + (terms + 1) * 4;
    const blocks = new DataView(dir.buffer, dir.byteOffset + blocksAt, header.blocks * BLOCK_BYTES);
    if (postingsAt + termOffsets[terms]! !== size) {
      throw new DamagedIndexError(`${file}: holds ${size} bytes, its directory says ${postingsAt + termOffsets[terms]!}`);
    }
    if (blockStart[terms] !== header.blocks) throw new DamagedIndexError(`${file}: the block table does not add up`);
    // Each term: sparse, as many blocks as its postings need, its two streams filling its postings exactly; or dense
    // (no blocks), its postings at least its bitmap and codes (checked whole when read).
    for (let i = 0; i < terms; i++) {
      const from = blockStart[i]!;
      const to = blockStart[i + 1]!;
      if (to < from || dfs[i]! < 1 || dfs[i]! > header.docs) throw new DamagedIndexError(`${file}: term ${i} has ${to - from} blocks for ${dfs[i]} postings`);
      if (to === from) {
        if (termOffsets[i + 1]! - termOffsets[i]! < denseLayout(header.docs, dfs[i]!, 1).positionsAt) throw new DamagedIndexError(`${file}: dense term ${i} is cut short`);
        continue;
      }
      if (to - from !== Math.ceil(dfs[i]! / BLOCK_POSTINGS)) throw new DamagedIndexError(`${file}: term ${i} has ${to - from} blocks for ${dfs[i]} postings`);
      const last = (to - 1) * BLOCK_BYTES;
      if (termOffsets[i]! + blocks.getUint32(last + 4, true) + blocks.getUint32(last + 8, true) !== termOffsets[i + 1]!) {
        throw new DamagedIndexError(`${file}: term ${i}'s blocks do not fill its postings`);
      }
      if (blocks.getUint32(last, true) >= header.docs) throw new DamagedIndexError(`${file}: a block names node ${blocks.getUint32(last, true)} of ${header.docs}`);
    }
  return { termOffsets, dfs, blockStart, blocks };
}

/**
 * A segment's sorted term directory and block table (in memory): which terms it holds, how many documents each,
 * dense or sparse, and where their postings and blocks are.
 */
export class SegmentDirectory {
  protected readonly termOffsets: Uint32Array;
  protected readonly dfs: Uint32Array;
  protected readonly blockStart: Uint32Array;
  protected readonly blocks: DataView;

  constructor(
    readonly file: string,
    readonly header: SegmentHeader,
    parts: DirectoryParts,
  ) {
    this.termOffsets = parts.termOffsets;
    this.dfs = parts.dfs;
    this.blockStart = parts.blockStart;
    this.blocks = parts.blocks;
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

  /** Is the term stored dense here (a bitmap and a code per document, no blocks)? */
  isDense(termIdx: number): boolean {
    return this.blockStart[termIdx] === this.blockStart[termIdx + 1];
  }

  /** Offset of the term's postings in the postings, and their end. */
  postingsRange(termIdx: number): [number, number] {
    return [this.termOffsets[termIdx]!, this.termOffsets[termIdx + 1]!];
  }

  /** The term's blocks: indexes [from, to) of the block table. */
  blockFrom(termIdx: number): number {
    return this.blockStart[termIdx]!;
  }

  blockTo(termIdx: number): number {
    return this.blockStart[termIdx + 1]!;
  }

  /** The last ordinal of block `b`. */
  blockLast(b: number): number {
    return this.blocks.getUint32(b * BLOCK_BYTES, true);
  }

  /** Postings in block `b` of term `termIdx`. */
  blockSize(termIdx: number, b: number): number {
    return b < this.blockStart[termIdx + 1]! - 1 ? BLOCK_POSTINGS : this.dfs[termIdx]! - (b - this.blockStart[termIdx]!) * BLOCK_POSTINGS;
  }

  /** Byte range of blocks [from, to)'s document streams in the postings. */
  docRange(termIdx: number, from: number, to: number): [number, number] {
    const base = this.termOffsets[termIdx]!;
    const first = this.blockStart[termIdx]!;
    return [base + (from === first ? 0 : this.blocks.getUint32((from - 1) * BLOCK_BYTES + 4, true)), base + this.blocks.getUint32((to - 1) * BLOCK_BYTES + 4, true)];
  }

  /** Byte range of blocks [from, to)'s position streams in the postings. */
  posRange(termIdx: number, from: number, to: number): [number, number] {
    const first = this.blockStart[termIdx]!;
    const last = this.blockStart[termIdx + 1]! - 1;
    const base = this.termOffsets[termIdx]! + this.blocks.getUint32(last * BLOCK_BYTES + 4, true);
    return [base + (from === first ? 0 : this.blocks.getUint32((from - 1) * BLOCK_BYTES + 8, true)), base + this.blocks.getUint32((to - 1) * BLOCK_BYTES + 8, true)];
  }
}
