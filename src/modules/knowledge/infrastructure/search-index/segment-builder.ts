import { textTerms } from '../../domain/search';
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
}

/**
 * Builds one segment in memory from nodes in graph order (each with its line's offset and length), then encodes it.
 * Memory: the postings as varints (a few bytes per word) plus the doc table — bounded by the segment's size, which
 * the index caps (SEGMENT_MAX_DOCS).
 */
export class SegmentBuilder {
  private readonly postings = new Map<string, TermPostings>();
  private readonly docs: DocEntry[] = [];

  constructor(
    readonly start: number,
    public end: number,
  ) {}

  get size(): number {
    return this.docs.length;
  }

  add(node: StoredKnowledgeNode, offset: number, lineLength: number): void {
    const ord = this.docs.length;
    const thought = textTerms(node.thought, 0);
    const tags = textTerms(node.tags.join(' '), thought.length);
    const arts = textTerms(artifactText(node), thought.length + tags.length);
    const end = thought.length + tags.length + arts.length;
    const created = Date.parse(node.createdAt);
    this.docs.push({ offset, lineLength, createdAt: created, role: node.role, thoughtEnd: thought.length, tagsEnd: thought.length + tags.length, end });
    // Positions per term, in order.
    const byTerm = new Map<string, number[]>();
    for (const part of [thought, tags, arts]) {
      for (let i = 0; i < part.terms.length; i++) {
        const t = part.terms[i]!;
        let list = byTerm.get(t);
        if (!list) byTerm.set(t, (list = []));
        list.push(part.positions[i]!);
      }
    }
    for (const tag of new Set(node.tags)) byTerm.set(TAG_TERM_PREFIX + tag, []);
    for (const [term, positions] of byTerm) {
      let p = this.postings.get(term);
      if (!p) this.postings.set(term, (p = { w: new VarintWriter(8), lastOrd: -1, df: 0 }));
      p.w.push(ord - p.lastOrd);
      p.lastOrd = ord;
      p.df++;
      p.w.push(positions.length);
      let prev = 0;
      for (const pos of positions) {
        p.w.push(pos - prev);
        prev = pos;
      }
    }
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
