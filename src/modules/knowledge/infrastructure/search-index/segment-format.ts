import { KNOWLEDGE_ROLES, type KnowledgeRole } from '../../domain/knowledge-node';
import { FIELD_WEIGHTS } from '../../domain/search/bm25';

/**
 * One segment of a project's search index: the index of the graph file's bytes [start, end) (docs/knowledge.md,
 * "The search index on disk"). Immutable once written; the manifest says which segments make the index.
 *
 *   0   "WGSI"                     magic
 *   4   u32 LE                     SEGMENT_FORMAT
 *   8   u32 LE                     H, the header's length
 *   12  H bytes                    header JSON: {start, end, docs, terms (sorted, UTF-16 order), blocks}
 *   ..  docs × DOC_BYTES           the doc table (below), in graph order
 *   ..  (terms + 1) × u32 LE       where each term's postings start, relative to the postings (the last: their end)
 *   ..  terms × u32 LE             each term's document frequency
 *   ..  (terms + 1) × u32 LE       each term's first block in the block table (the last: the number of blocks)
 *   ..  blocks × BLOCK_BYTES       the block table (below)
 *   ..  postings                   per term: its blocks' document streams, then their position streams
 *
 * A term's postings are cut into blocks of {@link BLOCK_POSTINGS} documents. A block's document stream: per document
 * a varint ordinal gap (from the previous block's last ordinal; the first block's from -1) and a varint field code —
 * thought count × 4, + 1 if a tag count follows, + 2 if an artifact count follows — then those counts. Its position
 * stream: per document its positions as varint gaps (the first from 0), as many as its counts add up to. So a search
 * decodes documents and their term frequencies without positions, and positions only for a phrase's candidates.
 *
 * The block table gives per block its last ordinal, where its two streams end (relative to the term's postings and to
 * its position streams) and block-max bounds: two (weighted tf, weighted length) pairs such that every document of
 * the block has a weighted tf ≤ w1 and length ≥ l1, or tf ≤ w2 and length ≥ l2. BM25 grows with the tf and shrinks
 * with the length whatever the idf and average length, so max(score(w1, l1), score(w2, l2)) bounds every score in the
 * block (w rounded up and l down to float32). (w1, l1): the highest tf and the shortest length among those; (w2, l2):
 * the highest tf and the shortest length among the documents shorter than l1.
 *
 * A document's words are numbered thought first, then tags, then artifact names and paths (stopwords counted), so the
 * field of a position is known from the doc table's `thoughtEnd`/`tagsEnd`. A `tags` filter term is the tag itself
 * after {@link TAG_TERM_PREFIX} (exact, as list_nodes' filter), with no positions.
 */
export const SEGMENT_MAGIC = 0x49534757; // "WGSI" little-endian
export const SEGMENT_FORMAT = 2;
export const DOC_BYTES = 40;
/** Documents per postings block. */
export const BLOCK_POSTINGS = 128;
/** Layout of a block: u32 last ordinal, u32 document stream end, u32 position stream end, f32 w1, l1, w2, l2. */
export const BLOCK_BYTES = 28;

/** Terms of exact tags start with NUL: no word of a text can (words are letters and digits). */
export const TAG_TERM_PREFIX = '\u0000';

export interface SegmentHeader {
  start: number;
  end: number;
  docs: number;
  terms: string[];
  /** Blocks in the block table. */
  blocks: number;
}

/** One document of the doc table. */
export interface DocEntry {
  /** Byte offset and length of the node's line in the graph file. */
  offset: number;
  lineLength: number;
  /** createdAt in ms since the epoch (NaN when the node's createdAt does not parse). */
  createdAt: number;
  role: KnowledgeRole;
  thoughtEnd: number;
  tagsEnd: number;
  /** Words in all fields. */
  end: number;
}

export function roleCode(role: KnowledgeRole): number {
  return KNOWLEDGE_ROLES.indexOf(role);
}

export function roleOf(code: number): KnowledgeRole {
  return KNOWLEDGE_ROLES[code] ?? 'actor';
}

/** Layout of doc `i` in the doc table: f64 offset, f64 createdAt, u32 line length, thoughtEnd, tagsEnd, end, u8 role. */
export function writeDoc(view: DataView, at: number, d: DocEntry): void {
  view.setFloat64(at, d.offset, true);
  view.setFloat64(at + 8, d.createdAt, true);
  view.setUint32(at + 16, d.lineLength, true);
  view.setUint32(at + 20, d.thoughtEnd, true);
  view.setUint32(at + 24, d.tagsEnd, true);
  view.setUint32(at + 28, d.end, true);
  view.setUint8(at + 32, roleCode(d.role));
}

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

/** The smallest float32 ≥ x (x ≥ 0, finite). */
export function f32Up(x: number): number {
  F32[0] = x;
  if (F32[0]! >= x) return F32[0]!;
  U32[0]! += 1;
  return F32[0]!;
}

/** The largest float32 ≤ x (x ≥ 0, finite). */
export function f32Down(x: number): number {
  F32[0] = x;
  if (F32[0]! <= x) return F32[0]!;
  if (U32[0] === 0) return 0;
  U32[0]! -= 1;
  return F32[0]!;
}

/** A term's weighted frequency in a document from its counts per field (the one formula builder and reader use). */
export function weightedTf(thought: number, tags: number, artifacts: number): number {
  return thought * FIELD_WEIGHTS.thought + tags * FIELD_WEIGHTS.tags + artifacts * FIELD_WEIGHTS.artifacts;
}

/** A document's weighted length from the doc table's word ends: thought words × 1 + tag words × 0.4 + artifact words × 0.2. */
export function weightedLength(thoughtEnd: number, tagsEnd: number, end: number): number {
  return weightedTf(thoughtEnd, tagsEnd - thoughtEnd, end - tagsEnd);
}
