import { forEachTerm } from '../../domain/search';
import type { StoredKnowledgeNode } from '../../domain/knowledge-node';
import { VarintWriter } from './varint';
import { BIGRAM_PREFIX, TAG_TERM_PREFIX, type DocEntry } from './segment-format';
import { encodeSegmentSteps } from './segment-encoder';
import { drain, type Steps } from './steps';
import { copyTermPostings } from './segment-postings-copy';
import { DamagedIndexError, type LoadedSegment } from './segment-reader';
import type { SegmentOverlay } from './segment-overlay';

/** A segment's rewrite marks as a merge takes them: its overlay (if any) and the graph bytes it covers now. */
export interface RewriteMarks {
  overlay?: SegmentOverlay;
  start: number;
  end: number;
}

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
  /** Documents merged in that rewrites had deleted (ordinals ascending): the written segment's manifest entry marks them. */
  readonly deleted: number[] = [];

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

  private termOf(term: string): TermPostings {
    let p = this.postings.get(term);
    if (!p) this.postings.set(term, (p = termPostings()));
    return p;
  }

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
  async appendSegment(seg: LoadedSegment, marks?: RewriteMarks): Promise<void> {
    drain(this.appendSegmentSteps(seg, marks));
  }

  /**
   * {@link appendSegment} in steps (a few terms each), for a flush in the background. `marks`: what rewrites of the
   * graph did to the segment (its manifest entry's overlay and the bytes it covers now) — its documents' offsets are
   * mapped to the graph's now and its deleted documents stay, marked in {@link deleted} (ordinals unchanged, so a
   * search cursor goes on across the merge; a later rewrite indexes a segment half deleted again).
   */
  *appendSegmentSteps(seg: LoadedSegment, marks?: RewriteMarks): Steps<void> {
    const start = marks?.start ?? seg.header.start;
    if (start !== this.end) throw new DamagedIndexError(`${seg.file}: starts at byte ${start}, the merge is at ${this.end}`);
    const base = this.docs.length;
    const o = marks?.overlay;
    for (let i = 0; i < seg.docCount; i++) {
      const d = seg.doc(i);
      if (o) d.offset = o.offsetOf(d.offset);
      this.docs.push(d);
    }
    if (o) for (const d of o.deletedOrds) this.deleted.push(base + d);
    const terms = seg.header.terms;
    for (let t = 0; t < terms.length; t++) {
      // Bigrams are derived again when the merged segment is encoded (they depend on which terms are dense in it).
      if (terms[t]!.startsWith(BIGRAM_PREFIX)) continue;
      // A dense term's copy is ~0.1 ms: a step every few terms.
      if (t % 4 === 3) yield;
      copyTermPostings(seg, t, base, this.termOf(terms[t]!));
    }
    this.end = marks?.end ?? seg.header.end;
  }

  /**
   * Appends another builder's nodes (the graph's next bytes after this builder's): its doc table and its postings as
   * accumulated, each term's bytes copied as they are but for its first ordinal gap (nothing decoded and pushed again:
   * a flush merges the tail's open builder so, without encoding it first).
   */
  appendBuilder(other: SegmentBuilder): void {
    drain(this.appendBuilderSteps(other));
  }

  /** {@link appendBuilder} in steps (a few dozen terms each), for a flush in the background. */
  *appendBuilderSteps(other: SegmentBuilder): Steps<void> {
    let step = 0;
    if (other.start !== this.end) throw new DamagedIndexError(`(tail ${other.start}-${other.end}): starts at byte ${other.start}, the merge is at ${this.end}`);
    const base = this.docs.length;
    for (const d of other.docs) this.docs.push(d);
    for (const [term, q] of other.postings) {
      if (++step % 64 === 0) yield;
      const bytes = q.w.bytes();
      // The first varint: the first document's ordinal gap from -1.
      let at = 0;
      let gap = 0;
      for (let scale = 1; ; scale *= 0x80) {
        const b = bytes[at++]!;
        gap += (b & 0x7f) * scale;
        if (b < 0x80) break;
      }
      const p = this.termOf(term);
      p.w.push(base + gap - 1 - p.lastOrd);
      p.w.append(bytes.subarray(at));
      p.lastOrd = base + q.lastOrd;
      p.df += q.df;
    }
    this.end = other.end;
  }

  /** The segment file's bytes (the layout of segment-format.ts). */
  encode(): Buffer {
    return drain(this.encodeSteps());
  }

  /** {@link encode} in steps, for a flush in the background. */
  encodeSteps(): Steps<Buffer> {
    return encodeSegmentSteps(this.start, this.end, this.docs, this.postings);
  }
}
