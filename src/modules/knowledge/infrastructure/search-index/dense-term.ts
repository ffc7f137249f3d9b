import { CHUNK_DOCS, DENSE_POSITION_BLOCK, denseDictBytes, type Postings } from './segment-format';
import { DamagedIndexError } from './segment-header';
import { VarintReader } from './varint';

/** Where a dense term's parts start in its postings (segment-format.ts), for a segment of `docs` documents. */
export interface DenseLayout {
  /** Code dictionary entries. */
  n: number;
  words: number;
  bitmapAt: number;
  /** Chunks of the segment, and where their best codes are. */
  chunks: number;
  chunksAt: number;
  codesAt: number;
  offsetsAt: number;
  positionsAt: number;
}

export function denseLayout(docs: number, df: number, n: number): DenseLayout {
  const words = Math.ceil(docs / 32);
  const bitmapAt = denseDictBytes(n);
  const chunks = Math.ceil(docs / CHUNK_DOCS);
  const chunksAt = bitmapAt + words * 4;
  const codesAt = chunksAt + chunks;
  const offsetsAt = codesAt + docs;
  return { n, words, bitmapAt, codesAt, chunks, chunksAt, offsetsAt, positionsAt: offsetsAt + (Math.ceil(df / DENSE_POSITION_BLOCK) + 1) * 4 };
}

/** Set bits of a 32-bit word. */
export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Set bits of `bm` below bit `limit`. */
export function countBelow(bm: Uint32Array, limit: number): number {
  let n = 0;
  const full = limit >>> 5;
  for (let w = 0; w < full; w++) n += popcount(bm[w]!);
  if (limit & 31) n += popcount(bm[full]! & ((1 << (limit & 31)) - 1));
  return n;
}

/** The (thought, tags, artifacts) counts of a dense term's codes: entry c (1..n) at 3c, 3c + 1, 3c + 2. */
export function denseDict(bytes: Uint8Array, n: number): Uint8Array {
  const dict = new Uint8Array(3 * (n + 1));
  dict.set(bytes.subarray(4, 4 + 3 * n), 3);
  return dict;
}

/** A dense term's postings decoded whole from its bytes (a merge reads them so): ordinals and positions. */
export function decodeDenseWhole(file: string, docs: number, df: number, termIdx: number, bytes: Buffer): Postings {
  const n = bytes.readUInt32LE(0);
  const L = denseLayout(docs, df, n);
  if (n < 1 || n > 255 || bytes.length < L.positionsAt) throw new DamagedIndexError(`${file}: dense term ${termIdx} does not add up`);
  const ords = new Int32Array(df);
  let k = 0;
  for (let d = 0; d < docs; d++) {
    if (bytes[L.codesAt + d] === 0) continue;
    if (k >= df || bytes[L.codesAt + d]! > n) throw new DamagedIndexError(`${file}: dense term ${termIdx}'s codes do not match its frequency`);
    ords[k++] = d;
  }
  if (k !== df) throw new DamagedIndexError(`${file}: dense term ${termIdx}'s codes do not match its frequency`);
  const r = new VarintReader(bytes.subarray(L.positionsAt));
  const posStart = new Int32Array(df + 1);
  const pos: number[] = [];
  try {
    for (let i = 0; i < df; i++) {
      posStart[i] = pos.length;
      const count = r.read();
      let p = 0;
      for (let c = 0; c < count; c++) pos.push((p += r.read()));
    }
  } catch (e) {
    throw new DamagedIndexError(`${file}: ${(e as Error).message}`);
  }
  posStart[df] = pos.length;
  if (!r.done) throw new DamagedIndexError(`${file}: dense term ${termIdx}'s positions do not fill its postings`);
  return { ords, posStart, pos: Int32Array.from(pos) };
}
