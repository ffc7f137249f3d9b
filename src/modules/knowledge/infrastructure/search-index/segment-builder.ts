import { forEachTerm } from '../../domain/search';
import type { StoredKnowledgeNode } from '../../domain/knowledge-node';
import { VarintReader, VarintWriter } from './varint';
import {
  BLOCK_BYTES,
  BLOCK_POSTINGS,
  DOC_BYTES,
  SEGMENT_FORMAT,
  SEGMENT_MAGIC,
  TAG_TERM_PREFIX,
  f32Down,
  f32Up,
  weightedLength,
  weightedTf,
  writeDoc,
  type DocEntry,
} from './segment-format';
import { DamagedIndexError, type LoadedSegment } from './segment-reader';

/** The words of a node's artifacts as indexed: every name, then every path (PostgreSQL's column does the same). */
export function artifactText(node: StoredKnowledgeNode): string {
  const names = node.artifacts.map((a) => a.name).filter((n) => typeof n === 'string');
  const paths = node.artifacts.map((a) => a.path).filter((p): p is string => typeof p === 'string');
  return [...names, ...paths].join(' ');
}

interface TermPostings {
  w: VarintWriter;
  lastOrd: number;
  df: number;
  /** The document being added when this term was last seen, its positions in it so far, and the last one written. */
  doc: number;
  count: number;
  prev: number;
}

function termPostings(): TermPostings {
  return { w: new VarintWriter(8), lastOrd: -1, df: 0, doc: -1, count: 0, prev: 0 };
}

/**
 * Builds one segment in memory from nodes in graph order (each with its line's offset and length), or from other
 * segments' postings (a merge: no node is parsed or tokenized again), then encodes it.
 * Memory: the postings as varints (a few bytes per word) plus the doc table — bounded by the segment's size, which
 * the index caps (SEGMENT_MAX_DOCS).
 */
export class SegmentBuilder {
  private readonly postings = new Map<string, TermPostings>();
  private readonly docs: DocEntry[] = [];
  // The document being added: its words' terms and positions in order, and the distinct terms (reused buffers).
  private readonly wordTerms: TermPostings[] = [];
  private readonly wordPositions: number[] = [];
  private words = 0;
  private readonly touched: TermPostings[] = [];
  private ord = 0;
  private base = 0;

  constructor(
    readonly start: number,
    public end: number,
  ) {}

  get size(): number {
    return this.docs.length;
  }

  private readonly onTerm = (term: string, position: number): void => {
    const p = this.see(term);
    p.count++;
    this.wordTerms[this.words] = p;
    this.wordPositions[this.words++] = this.base + position;
  };

  /** The term's postings, marked as in the current document. */
  private see(term: string): TermPostings {
    let p = this.postings.get(term);
    if (!p) this.postings.set(term, (p = termPostings()));
    if (p.doc !== this.ord) {
      p.doc = this.ord;
      p.count = 0;
      this.touched.push(p);
    }
    return p;
  }

  add(node: StoredKnowledgeNode, offset: number, lineLength: number): void {
    const ord = (this.ord = this.docs.length);
    this.words = 0;
    this.touched.length = 0;
    this.base = 0;
    const thoughtEnd = forEachTerm(node.thought, this.onTerm);
    this.base = thoughtEnd;
    const tagsEnd = thoughtEnd + forEachTerm(node.tags.join(' '), this.onTerm);
    this.base = tagsEnd;
    const end = tagsEnd + forEachTerm(artifactText(node), this.onTerm);
    this.docs.push({ offset, lineLength, createdAt: Date.parse(node.createdAt), role: node.role, thoughtEnd, tagsEnd, end });
    // A tag's exact term, no positions.
    for (const tag of node.tags) this.see(TAG_TERM_PREFIX + tag);
    // Per term: ordinal gap and count, then (in word order, so each term's positions follow its own count) the gaps.
    for (const p of this.touched) {
      p.w.push(ord - p.lastOrd);
      p.lastOrd = ord;
      p.df++;
      p.w.push(p.count);
      p.prev = 0;
    }
    for (let i = 0; i < this.words; i++) {
      const p = this.wordTerms[i]!;
      const pos = this.wordPositions[i]!;
      p.w.push(pos - p.prev);
      p.prev = pos;
    }
    this.wordTerms.length = 0;
  }

  /**
   * Appends a whole segment (the next bytes of the graph after this builder's): its doc table and its postings, the
   * ordinals shifted past this builder's documents. The segment must be held in memory ({@link LoadedSegment.fromBuffer}).
   */
  async appendSegment(seg: LoadedSegment): Promise<void> {
    if (seg.header.start !== this.end) throw new DamagedIndexError(`${seg.file}: starts at byte ${seg.header.start}, the merge is at ${this.end}`);
    const base = this.docs.length;
    for (let i = 0; i < seg.docCount; i++) this.docs.push(seg.doc(i));
    const terms = seg.header.terms;
    for (let t = 0; t < terms.length; t++) {
      const { ords, posStart, pos } = await seg.postings(undefined, t);
      let p = this.postings.get(terms[t]!);
      if (!p) this.postings.set(terms[t]!, (p = termPostings()));
      for (let k = 0; k < ords.length; k++) {
        const ord = base + ords[k]!;
        p.w.push(ord - p.lastOrd);
        p.lastOrd = ord;
        p.df++;
        const to = posStart[k + 1]!;
        p.w.push(to - posStart[k]!);
        let prev = 0;
        for (let i = posStart[k]!; i < to; i++) {
          p.w.push(pos[i]! - prev);
          prev = pos[i]!;
        }
      }
    }
    this.end = seg.header.end;
  }

  /** The segment file's bytes (the layout of segment-format.ts: blocks of postings with their bounds). */
  encode(): Buffer {
    const terms = [...this.postings.keys()].sort();
    const out = new VarintWriter(1 << 16);
    const termOffsets = new Uint32Array(terms.length + 1);
    const dfs = new Uint32Array(terms.length);
    const blockStart = new Uint32Array(terms.length + 1);
    const blocks: number[] = [];
    const docs = new VarintWriter(1024);
    const pos = new VarintWriter(1024);
    terms.forEach((t, i) => {
      const p = this.postings.get(t)!;
      termOffsets[i] = out.length;
      dfs[i] = p.df;
      blockStart[i] = blocks.length / 7;
      encodeTerm(p.w.bytes(), p.df, this.docs, docs, pos, blocks);
      out.append(docs.bytes());
      out.append(pos.bytes());
    });
    termOffsets[terms.length] = out.length;
    blockStart[terms.length] = blocks.length / 7;
    const blockCount = blocks.length / 7;
    const header = Buffer.from(JSON.stringify({ start: this.start, end: this.end, docs: this.docs.length, terms, blocks: blockCount }), 'utf8');
    const docsAt = 12 + header.length;
    const offsetsAt = docsAt + this.docs.length * DOC_BYTES;
    const dfAt = offsetsAt + (terms.length + 1) * 4;
    const blockStartAt = dfAt + terms.length * 4;
    const blocksAt = blockStartAt + (terms.length + 1) * 4;
    const postingsAt = blocksAt + blockCount * BLOCK_BYTES;
    const buf = Buffer.alloc(postingsAt + out.length);
    buf.writeUInt32LE(SEGMENT_MAGIC, 0);
    buf.writeUInt32LE(SEGMENT_FORMAT, 4);
    buf.writeUInt32LE(header.length, 8);
    header.copy(buf, 12);
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    this.docs.forEach((d, i) => writeDoc(view, docsAt + i * DOC_BYTES, d));
    for (let i = 0; i <= terms.length; i++) view.setUint32(offsetsAt + i * 4, termOffsets[i]!, true);
    for (let i = 0; i < terms.length; i++) view.setUint32(dfAt + i * 4, dfs[i]!, true);
    for (let i = 0; i <= terms.length; i++) view.setUint32(blockStartAt + i * 4, blockStart[i]!, true);
    for (let b = 0; b < blockCount; b++) {
      const at = blocksAt + b * BLOCK_BYTES;
      const e = b * 7;
      view.setUint32(at, blocks[e]!, true);
      view.setUint32(at + 4, blocks[e + 1]!, true);
      view.setUint32(at + 8, blocks[e + 2]!, true);
      view.setFloat32(at + 12, f32Up(blocks[e + 3]!), true);
      view.setFloat32(at + 16, f32Down(blocks[e + 4]!), true);
      view.setFloat32(at + 20, f32Up(blocks[e + 5]!), true);
      view.setFloat32(at + 24, f32Down(blocks[e + 6]!), true);
    }
    buf.set(out.bytes(), postingsAt);
    return buf;
  }
}

/**
 * Re-encodes one term's accumulated postings (ordinal gap, position count, position gaps per document) as blocks:
 * `docs` gets the document streams, `pos` the position streams (both cleared first; the term's postings are `docs`
 * then `pos`), `blocks` seven numbers per block (last ordinal, document stream end, position stream end, w1, l1, w2, l2;
 * ends relative to the term's postings, position ends to its position streams).
 */
function encodeTerm(acc: Uint8Array, df: number, table: readonly DocEntry[], docs: VarintWriter, pos: VarintWriter, blocks: number[]): void {
  docs.length = 0;
  pos.length = 0;
  const r = new VarintReader(acc);
  let ord = -1;
  let prevOrd = -1;
  const wtfs = new Float64Array(BLOCK_POSTINGS);
  const lens = new Float64Array(BLOCK_POSTINGS);
  let n = 0;
  const flush = () => {
    let w1 = 0;
    let l1 = Infinity;
    for (let k = 0; k < n; k++) if (wtfs[k]! > w1 || (wtfs[k] === w1 && lens[k]! < l1)) (w1 = wtfs[k]!), (l1 = lens[k]!);
    let w2 = 0;
    let l2 = l1;
    for (let k = 0; k < n; k++) {
      if (lens[k]! < l1) {
        if (wtfs[k]! > w2) w2 = wtfs[k]!;
        if (lens[k]! < l2) l2 = lens[k]!;
      }
    }
    blocks.push(ord, docs.length, pos.length, w1, l1, w2, l2);
    n = 0;
  };
  for (let i = 0; i < df; i++) {
    ord += r.read();
    const d = table[ord]!;
    const count = r.read();
    let p = 0;
    let nt = 0;
    let ng = 0;
    let na = 0;
    let prev = 0;
    for (let k = 0; k < count; k++) {
      p += r.read();
      if (p < d.thoughtEnd) nt++;
      else if (p < d.tagsEnd) ng++;
      else na++;
      pos.push(p - prev);
      prev = p;
    }
    docs.push(ord - prevOrd);
    prevOrd = ord;
    docs.push((nt << 2) | (ng > 0 ? 1 : 0) | (na > 0 ? 2 : 0));
    if (ng > 0) docs.push(ng);
    if (na > 0) docs.push(na);
    wtfs[n] = weightedTf(nt, ng, na);
    lens[n] = weightedLength(d.thoughtEnd, d.tagsEnd, d.end);
    n++;
    if (n === BLOCK_POSTINGS) flush();
  }
  if (n > 0) flush();
}
