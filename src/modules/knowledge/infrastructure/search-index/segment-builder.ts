import { textTerms } from '../../domain/search';
import type { StoredKnowledgeNode } from '../../domain/knowledge-node';
import { VarintWriter } from './varint';
import { DOC_BYTES, SEGMENT_FORMAT, SEGMENT_MAGIC, TAG_TERM_PREFIX, writeDoc, type DocEntry } from './segment-format';

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

  /** The segment file's bytes. */
  encode(): Buffer {
    const terms = [...this.postings.keys()].sort();
    const header = Buffer.from(JSON.stringify({ start: this.start, end: this.end, docs: this.docs.length, terms }), 'utf8');
    let postingsLen = 0;
    for (const t of terms) postingsLen += this.postings.get(t)!.w.length;
    const docsAt = 12 + header.length;
    const offsetsAt = docsAt + this.docs.length * DOC_BYTES;
    const dfAt = offsetsAt + (terms.length + 1) * 4;
    const postingsAt = dfAt + terms.length * 4;
    const out = Buffer.alloc(postingsAt + postingsLen);
    out.writeUInt32LE(SEGMENT_MAGIC, 0);
    out.writeUInt32LE(SEGMENT_FORMAT, 4);
    out.writeUInt32LE(header.length, 8);
    header.copy(out, 12);
    const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
    this.docs.forEach((d, i) => writeDoc(view, docsAt + i * DOC_BYTES, d));
    let at = 0;
    terms.forEach((t, i) => {
      const p = this.postings.get(t)!;
      out.writeUInt32LE(at, offsetsAt + i * 4);
      out.writeUInt32LE(p.df, dfAt + i * 4);
      out.set(p.w.bytes(), postingsAt + at);
      at += p.w.length;
    });
    out.writeUInt32LE(at, offsetsAt + terms.length * 4);
    return out;
  }
}
