import { KNOWLEDGE_ROLES, type KnowledgeRole } from '../../domain/knowledge-node';

/**
 * One segment of a project's search index: the index of the graph file's bytes [start, end) (docs/knowledge.md,
 * "The search index on disk"). Immutable once written; the manifest says which segments make the index.
 *
 *   0   "WGSI"                     magic
 *   4   u32 LE                     SEGMENT_FORMAT
 *   8   u32 LE                     H, the header's length
 *   12  H bytes                    header JSON: {start, end, docs, terms (sorted, UTF-16 order)}
 *   ..  docs × DOC_BYTES           the doc table (below), in graph order
 *   ..  (terms + 1) × u32 LE       where each term's postings start, relative to the postings (the last: their end)
 *   ..  terms × u32 LE             each term's document frequency
 *   ..  postings                   per term, per document: varint ordinal gap (first: ordinal + 1), varint count of
 *                                  positions, varint position gaps (first: the position)
 *
 * A document's words are numbered thought first, then tags, then artifact names and paths (stopwords counted), so the
 * field of a position is known from the doc table's `thoughtEnd`/`tagsEnd`. A `tags` filter term is the tag itself
 * after {@link TAG_TERM_PREFIX} (exact, as list_nodes' filter), with no positions.
 */
export const SEGMENT_MAGIC = 0x49534757; // "WGSI" little-endian
export const SEGMENT_FORMAT = 1;
export const DOC_BYTES = 40;

/** Terms of exact tags start with NUL: no word of a text can (words are letters and digits). */
export const TAG_TERM_PREFIX = '\u0000';

export interface SegmentHeader {
  start: number;
  end: number;
  docs: number;
  terms: string[];
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
