import * as os from 'node:os';
import { VarintWriter } from './varint';
import { bigramsSteps } from './segment-bigrams';
import { drain, type Steps } from './steps';
import { termImpact } from '../../domain/search/impact';

const LITTLE_ENDIAN = os.endianness() === 'LE';
import {
  BLOCK_BYTES,
  BLOCK_POSTINGS,
  CHUNK_DOCS,
  DENSE_POSITION_BLOCK,
  DENSE_SHARE,
  DOC_BYTES,
  SEGMENT_FORMAT,
  SEGMENT_MAGIC,
  TAG_TERM_PREFIX,
  bigramTerm,
  denseDictBytes,
  writeDoc,
  type DocEntry,
} from './segment-format';

/** A term's postings as the builder accumulates them: per document an ordinal gap, a position count, position gaps. */
export interface AccumulatedTerm {
  w: VarintWriter;
  df: number;
}

/** Reused arrays for one term's decoded postings (grown as needed). */
class Scratch {
  ords = new Int32Array(1024);
  counts = new Int32Array(1024 * 3);
  posStart = new Int32Array(1025);
  pos = new Int32Array(4096);

  fit(df: number, positions: number): void {
    if (this.ords.length < df) {
      this.ords = new Int32Array(df * 2);
      this.counts = new Int32Array(df * 6);
      this.posStart = new Int32Array(df * 2 + 1);
    }
    if (this.pos.length < positions) this.pos = new Int32Array(positions * 2);
  }
}

/** One term's encoded postings, its document frequency and (sparse) its block table entries. */
interface EncodedTerm {
  bytes: Uint8Array;
  df: number;
  blocks: number[];
}

/**
 * Encodes a segment (the layout of segment-format.ts) from its doc table and its terms' accumulated postings: each
 * term dense (bitmap, code column, positions by rank) or sparse (blocks), as its document frequency says, and the
 * bigrams of neighbouring dense terms derived from their positions. `postings` holds no bigram terms.
 */
export function encodeSegment(start: number, end: number, docs: readonly DocEntry[], postings: ReadonlyMap<string, AccumulatedTerm>): Buffer {
  return drain(encodeSegmentSteps(start, end, docs, postings));
}

/**
 * Work between two steps of {@link encodeSegmentSteps}, about 0.1 ms: postings (documents of a term), not terms — a
 * dense term of 50,000 documents takes ~0.3 ms, a rare one a microsecond (8 terms a step made 2–3 ms steps in the
 * bench's dense segments, far past an fsync).
 */
const POSTINGS_PER_STEP = 4096;
/** Terms and documents laid out between two steps. */
const LAYOUT_PER_STEP = 8192;

/** {@link encodeSegment} in steps (a few terms each), for a flush in the background. */
export function* encodeSegmentSteps(start: number, end: number, docs: readonly DocEntry[], postings: ReadonlyMap<string, AccumulatedTerm>): Steps<Buffer> {
  let work = 0;
  const encoded = new Map<string, EncodedTerm>();
  const s = new Scratch();
  const out = new VarintWriter(1024);
  const posStream = new VarintWriter(1024);
  // Each document's words, as the dense term at each position (-1: none): the bigrams are read off it.
  const wordAt = new Int32Array(docs.length + 1);
  for (let i = 0; i < docs.length; i++) wordAt[i + 1] = wordAt[i]! + docs[i]!.end;
  const slots = new Int32Array(wordAt[docs.length]!).fill(-1);
  const dense: string[] = [];
  // Each document's field ends in typed arrays, read in order: decoding every posting from the doc table's objects
  // (scattered in the heap) was the encoder's costliest line.
  const thoughtEnds = new Int32Array(docs.length);
  const tagsEnds = new Int32Array(docs.length);
  for (let i = 0; i < docs.length; i++) {
    thoughtEnds[i] = docs[i]!.thoughtEnd;
    tagsEnds[i] = docs[i]!.tagsEnd;
  }
  const encodeOne = (term: string, df: number): boolean => {
    out.length = 0;
    const blocks: number[] = [];
    const isDense = encodeDense(df, docs.length, s, out);
    if (!isDense) {
      encodeSparse(df, s, out, posStream, blocks);
      out.append(posStream.bytes());
    }
    encoded.set(term, { bytes: out.bytes().slice(), df, blocks });
    return isDense;
  };
  for (const [term, p] of postings) {
    if ((work += p.df) >= POSTINGS_PER_STEP) {
      work = 0;
      yield;
    }
    decodeTerm(p.w.bytes(), p.df, thoughtEnds, tagsEnds, s);
    if (!encodeOne(term, p.df) || term.startsWith(TAG_TERM_PREFIX)) continue;
    const id = dense.length;
    dense.push(term);
    for (let i = 0; i < p.df; i++) {
      const at = wordAt[s.ords[i]!]!;
      for (let k = s.posStart[i]!; k < s.posStart[i + 1]!; k++) slots[at + s.pos[k]!] = id;
    }
  }
  yield;
  for (const [key, ords] of yield* bigramsSteps(slots, wordAt, docs.length, dense.length)) {
    if ((work += ords.length) >= POSTINGS_PER_STEP) {
      work = 0;
      yield;
    }
    const df = ords.length;
    s.fit(df, 0);
    s.ords.set(ords);
    s.counts.fill(0, 0, 3 * df);
    s.posStart.fill(0, 0, df + 1);
    encodeOne(bigramTerm(dense[Math.floor(key / dense.length)]!, dense[key % dense.length]!), df);
  }
  yield;
  return yield* layOut(start, end, docs, encoded);
}

/** The segment's bytes: header, doc table, directory in term order, postings. */
function* layOut(start: number, end: number, docs: readonly DocEntry[], encoded: ReadonlyMap<string, EncodedTerm>): Steps<Buffer> {
  const terms = [...encoded.keys()].sort();
  let postingsBytes = 0;
  let blockCount = 0;
  for (const e of encoded.values()) (postingsBytes += e.bytes.length), (blockCount += e.blocks.length / 3);
  const header = Buffer.from(JSON.stringify({ start, end, docs: docs.length, terms, blocks: blockCount }), 'utf8');
  const docsAt = 12 + header.length;
  const offsetsAt = docsAt + docs.length * DOC_BYTES;
  const dfAt = offsetsAt + (terms.length + 1) * 4;
  const blockStartAt = dfAt + terms.length * 4;
  const blocksAt = blockStartAt + (terms.length + 1) * 4;
  const postingsAt = blocksAt + blockCount * BLOCK_BYTES;
  const buf = Buffer.alloc(postingsAt + postingsBytes);
  buf.writeUInt32LE(SEGMENT_MAGIC, 0);
  buf.writeUInt32LE(SEGMENT_FORMAT, 4);
  buf.writeUInt32LE(header.length, 8);
  header.copy(buf, 12);
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  for (let i = 0; i < docs.length; i++) {
    if (i % LAYOUT_PER_STEP === LAYOUT_PER_STEP - 1) yield;
    writeDoc(view, docsAt + i * DOC_BYTES, docs[i]!);
  }
  let at = 0;
  let block = 0;
  for (let i = 0; i < terms.length; i++) {
    if (i % LAYOUT_PER_STEP === LAYOUT_PER_STEP - 1) yield;
    const t = terms[i]!;
    const e = encoded.get(t)!;
    view.setUint32(offsetsAt + i * 4, at, true);
    view.setUint32(dfAt + i * 4, e.df, true);
    view.setUint32(blockStartAt + i * 4, block, true);
    for (let k = 0; k < e.blocks.length; k++) view.setUint32(blocksAt + (block * 3 + k) * 4, e.blocks[k]!, true);
    block += e.blocks.length / 3;
    buf.set(e.bytes, postingsAt + at);
    at += e.bytes.length;
  }
  view.setUint32(offsetsAt + terms.length * 4, at, true);
  view.setUint32(blockStartAt + terms.length * 4, block, true);
  return buf;
}

/** Decodes accumulated postings into `s`: ordinals, (thought, tag, artifact) counts, positions. */
function decodeTerm(acc: Uint8Array, df: number, thoughtEnds: Int32Array, tagsEnds: Int32Array, s: Scratch): void {
  // Positions never outnumber the bytes that encode them.
  s.fit(df, acc.length);
  const { ords, counts, posStart, pos } = s;
  let at = 0;
  // An unsigned LEB128 varint at `at` (the builder's own bytes: well formed).
  const read = (): number => {
    let b = acc[at++]!;
    if (b < 0x80) return b;
    let n = b & 0x7f;
    let scale = 0x80;
    for (;;) {
      b = acc[at++]!;
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
      scale *= 0x80;
    }
  };
  let ord = -1;
  let np = 0;
  for (let i = 0; i < df; i++) {
    ord += read();
    const thoughtEnd = thoughtEnds[ord]!;
    const tagsEnd = tagsEnds[ord]!;
    const count = read();
    let p = 0;
    let nt = 0;
    let ng = 0;
    posStart[i] = np;
    for (let k = 0; k < count; k++) {
      p += read();
      if (p < thoughtEnd) nt++;
      else if (p < tagsEnd) ng++;
      pos[np++] = p;
    }
    ords[i] = ord;
    counts[3 * i] = nt;
    counts[3 * i + 1] = ng;
    counts[3 * i + 2] = count - nt - ng;
  }
  posStart[df] = np;
}

/** The words' bytes, little-endian. */
function littleEndianBytes(words: Uint32Array): Uint8Array {
  if (LITTLE_ENDIAN) return new Uint8Array(words.buffer, words.byteOffset, words.byteLength);
  const out = new Uint8Array(words.byteLength);
  const v = new DataView(out.buffer);
  words.forEach((w, i) => v.setUint32(i * 4, w, true));
  return out;
}

/** Writes the term dense to `out` when it is dense and its counts fit a code of at most 255; false otherwise. */
function encodeDense(df: number, docs: number, s: Scratch, out: VarintWriter): boolean {
  if (df * DENSE_SHARE < docs) return false;
  const codeOf = new Map<number, number>();
  const dict: number[] = [];
  const codes = new Uint8Array(docs);
  // Most documents repeat the counts of the one before (a term once in the thought): the last code is tried first.
  let lastKey = -1;
  let last = 0;
  for (let i = 0; i < df; i++) {
    const nt = s.counts[3 * i]!;
    const ng = s.counts[3 * i + 1]!;
    const na = s.counts[3 * i + 2]!;
    if (nt > 255 || ng > 255 || na > 255) return false;
    const key = (nt << 16) | (ng << 8) | na;
    if (key !== lastKey) {
      let c = codeOf.get(key);
      if (c === undefined) {
        if (dict.length >= 3 * 255) return false;
        dict.push(nt, ng, na);
        codeOf.set(key, (c = dict.length / 3));
      }
      lastKey = key;
      last = c;
    }
    codes[s.ords[i]!] = last;
  }
  const n = dict.length / 3;
  const head = new Uint8Array(denseDictBytes(n));
  new DataView(head.buffer).setUint32(0, n, true);
  head.set(dict, 4);
  out.append(head);
  const words = new Uint32Array(Math.ceil(docs / 32));
  for (let i = 0; i < df; i++) words[s.ords[i]! >>> 5]! |= 1 << (s.ords[i]! & 31);
  const bitmap = littleEndianBytes(words);
  out.append(bitmap);
  // Each chunk's code of highest impact (the reader computes the same floats from the same counts).
  const impact = new Float64Array(n + 1);
  for (let c = 1; c <= n; c++) impact[c] = termImpact(dict[3 * c - 3]!, dict[3 * c - 2]!, dict[3 * c - 1]!);
  const best = new Uint8Array(Math.ceil(docs / CHUNK_DOCS));
  for (let i = 0; i < df; i++) {
    const k = Math.floor(s.ords[i]! / CHUNK_DOCS);
    const c = codes[s.ords[i]!]!;
    if (best[k] === 0 || impact[c]! > impact[best[k]!]!) best[k] = c;
  }
  out.append(best);
  out.append(codes);
  const posBlocks = Math.ceil(df / DENSE_POSITION_BLOCK);
  const offsets = new Uint8Array((posBlocks + 1) * 4);
  const ov = new DataView(offsets.buffer);
  const stream = new VarintWriter(1024);
  for (let i = 0; i < df; i++) {
    if (i % DENSE_POSITION_BLOCK === 0) ov.setUint32((i / DENSE_POSITION_BLOCK) * 4, stream.length, true);
    const from = s.posStart[i]!;
    const to = s.posStart[i + 1]!;
    stream.push(to - from);
    let prev = 0;
    for (let k = from; k < to; k++) {
      stream.push(s.pos[k]! - prev);
      prev = s.pos[k]!;
    }
  }
  ov.setUint32(posBlocks * 4, stream.length, true);
  out.append(offsets);
  out.append(stream.bytes());
  return true;
}

/**
 * The term sparse: `docs` gets its blocks' document streams, `pos` their position streams (both cleared first),
 * `blocks` three numbers per block (last ordinal, document stream end, position stream end).
 */
function encodeSparse(df: number, s: Scratch, docs: VarintWriter, pos: VarintWriter, blocks: number[]): void {
  docs.length = 0;
  pos.length = 0;
  let prevOrd = -1;
  for (let i = 0; i < df; i++) {
    const ord = s.ords[i]!;
    const ng = s.counts[3 * i + 1]!;
    const na = s.counts[3 * i + 2]!;
    docs.push(ord - prevOrd);
    prevOrd = ord;
    docs.push((s.counts[3 * i]! << 2) | (ng > 0 ? 1 : 0) | (na > 0 ? 2 : 0));
    if (ng > 0) docs.push(ng);
    if (na > 0) docs.push(na);
    let prev = 0;
    for (let k = s.posStart[i]!; k < s.posStart[i + 1]!; k++) {
      pos.push(s.pos[k]! - prev);
      prev = s.pos[k]!;
    }
    if ((i + 1) % BLOCK_POSTINGS === 0 || i === df - 1) blocks.push(ord, docs.length, pos.length);
  }
}
