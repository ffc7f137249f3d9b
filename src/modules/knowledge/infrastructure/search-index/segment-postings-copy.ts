import { denseLayout } from './dense-term';
import { DamagedIndexError, type LoadedSegment } from './segment-reader';
import type { VarintWriter } from './varint';

/** One term's postings as a builder accumulates them (segment-builder.ts): per document an ordinal gap, a position count, position gaps. */
export interface AccumulatingTerm {
  w: VarintWriter;
  lastOrd: number;
  df: number;
}

/**
 * Appends term `t` of `seg` (held in memory) to `p`, its ordinals shifted by `base` — what decoding the term whole and
 * pushing every number again gives, but the position gaps are copied byte for byte (a dense term stores each
 * document's count and gaps as the builder does; a sparse one its gaps apart from its document stream): only ordinal
 * gaps and sparse counts are encoded again (a merge's decoding took half the time of decoding and pushing, 51,800 nodes).
 * What does not add up is a DamagedIndexError, as decoding finds it.
 */
export function copyTermPostings(seg: LoadedSegment, t: number, base: number, p: AccumulatingTerm): void {
  if (seg.isDense(t)) copyDense(seg, t, base, p);
  else copySparse(seg, t, base, p);
}

function damaged(seg: LoadedSegment, t: number, what: string): DamagedIndexError {
  return new DamagedIndexError(`${seg.file}: term ${t}'s ${what}`);
}

function copyDense(seg: LoadedSegment, t: number, base: number, p: AccumulatingTerm): void {
  const [a, b] = seg.postingsRange(t);
  const bytes = seg.readSync(undefined, a, b);
  const docs = seg.header.docs;
  const df = seg.df(t);
  const n = bytes.length >= 4 ? bytes.readUInt32LE(0) : 0;
  const L = denseLayout(docs, df, n);
  if (n < 1 || n > 255 || bytes.length < L.positionsAt) throw new DamagedIndexError(`${seg.file}: dense term ${t} does not add up`);
  const end = bytes.length;
  const w = p.w;
  w.reserve(end - L.positionsAt + df * 5);
  const out = w.buf;
  let len = w.length;
  let at = L.positionsAt;
  let k = 0;
  let last = p.lastOrd;
  for (let d = 0; d < docs; d++) {
    const code = bytes[L.codesAt + d]!;
    if (code === 0) continue;
    if (k++ >= df || code > n) throw damaged(seg, t, 'codes do not match its frequency');
    // The ordinal gap (at most 5 bytes), then the document's count and gaps as they are.
    let gap = base + d - last;
    last = base + d;
    while (gap >= 0x80) {
      out[len++] = (gap & 0x7f) | 0x80;
      gap >>>= 7;
    }
    out[len++] = gap;
    let count = 0;
    let scale = 1;
    let x: number;
    do {
      if (at >= end) throw damaged(seg, t, 'positions run past its postings');
      x = bytes[at++]!;
      out[len++] = x;
      count += (x & 0x7f) * scale;
      scale *= 0x80;
    } while (x >= 0x80);
    if (count > end - at) throw damaged(seg, t, 'positions run past its postings');
    for (let c = 0; c < count; ) {
      if (at >= end) throw damaged(seg, t, 'positions run past its postings');
      x = bytes[at++]!;
      out[len++] = x;
      if (x < 0x80) c++;
    }
  }
  if (k !== df) throw damaged(seg, t, 'codes do not match its frequency');
  if (at !== end) throw damaged(seg, t, 'positions do not fill its postings');
  w.length = len;
  p.lastOrd = last;
  p.df += df;
}

function copySparse(seg: LoadedSegment, t: number, base: number, p: AccumulatingTerm): void {
  const from = seg.blockFrom(t);
  const to = seg.blockTo(t);
  const [d0, d1] = seg.docRange(t, from, to);
  const [p0, p1] = seg.posRange(t, from, to);
  const bytes = seg.readSync(undefined, d0, p1);
  const docEnd = d1 - d0;
  const posEnd = p1 - d0;
  let da = 0;
  let pa = p0 - d0;
  const read = (): number => {
    let v = 0;
    let scale = 1;
    for (;;) {
      if (da >= docEnd) throw damaged(seg, t, 'documents run past its postings');
      const x = bytes[da++]!;
      v += (x & 0x7f) * scale;
      if (x < 0x80) return v;
      scale *= 0x80;
    }
  };
  const w = p.w;
  let ord = -1;
  for (let blk = from; blk < to; blk++) {
    const size = seg.blockSize(t, blk);
    for (let i = 0; i < size; i++) {
      ord += read();
      const code = read();
      const count = (code >>> 2) + (code & 1 ? read() : 0) + (code & 2 ? read() : 0);
      w.push(base + ord - p.lastOrd);
      p.lastOrd = base + ord;
      w.push(count);
      if (count > posEnd - pa) throw damaged(seg, t, 'positions run past its postings');
      w.reserve(count * 5);
      const out = w.buf;
      let len = w.length;
      for (let c = 0; c < count; ) {
        if (pa >= posEnd) throw damaged(seg, t, 'positions run past its postings');
        const x = bytes[pa++]!;
        out[len++] = x;
        if (x < 0x80) c++;
      }
      w.length = len;
    }
    if (ord !== seg.blockLast(blk) || ord >= seg.header.docs) throw new DamagedIndexError(`${seg.file}: block ${blk} does not end at its last node`);
  }
  p.df += seg.df(t);
}
