import { KNOWLEDGE_ROLES, type KnowledgeRole } from '../../domain/knowledge-node';

/**
 * One segment of a project's search index: the index of the graph file's bytes [start, end) (docs/knowledge-graph.md,
 * "Search", "The index on files"). Immutable once written; the manifest says which segments make the index.
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
 *   ..  postings                   per term: sparse (blocks) or dense (a bitmap and a code column), below
 *
 * A term is **dense** in a segment when it is in at least 1/{@link DENSE_SHARE} of the segment's documents (and its
 * counts fit a byte code, below); it then has no blocks, and its postings are:
 *   u32 LE n; n × 3 u8, padded to 4 bytes   the code dictionary: code c (1..n) means (thought, tag, artifact) counts
 *   W × u32 LE                              a bitmap of the documents holding it (W = ⌈docs / 32⌉; bit d % 32 of word d / 32)
 *   ⌈docs / 1024⌉ × u8                      per chunk of {@link CHUNK_DOCS} documents, the code of highest impact
 *                                           among them (domain/search/impact.ts; the first of equals; 0: none holds the term)
 *   docs × u8                               each document's code (0: absent)
 *   (⌈df / 128⌉ + 1) × u32 LE               where the positions of the documents of rank 128k, 128k + 1, … start (the last: the end)
 *   positions                               per document holding it, in order: its position count, then its positions as gaps
 * so a search ANDs, ORs and counts documents 32 at a time, scores them from the code alone (a score has no length
 * normalization), and bounds a chunk's best score from its best code (a chunk that cannot enter the page is only
 * counted). Format 5: the chunk's best code is the one of highest impact (ts_rank's, which the search ranks by); format
 * 4's was the one of highest weighted frequency, which is not the same order (one thought occurrence has a higher
 * impact than three tag ones), so its bounds would not hold.
 *
 * A **sparse** term's postings are cut into blocks of {@link BLOCK_POSTINGS} documents. A block's document stream: per
 * document a varint ordinal gap (from the previous block's last ordinal; the first block's from -1) and a varint field
 * code — thought count × 4, + 1 if a tag count follows, + 2 if an artifact count follows — then those counts. Its
 * position stream: per document its positions as varint gaps (the first from 0), as many as its counts add up to. The
 * block table gives per block its last ordinal and where its two streams end (relative to the term's postings and to
 * its position streams); the term's postings are its document streams, then its position streams.
 *
 * A document's words are numbered thought first, then tags, then artifact names and paths (stopwords counted), so the
 * field of a position is known from the doc table's `thoughtEnd`/`tagsEnd`. A `tags` filter term is the tag itself
 * after {@link TAG_TERM_PREFIX} (exact, as list_nodes' filter), with no positions. Two terms at neighbouring positions
 * p, p + 1 also make a **bigram** term, {@link BIGRAM_PREFIX} + first + ' ' + second, without positions: the documents
 * where the phrase of the two is (a longer phrase is looked for in the documents holding all of its bigrams).
 */
export const SEGMENT_MAGIC = 0x49534757; // "WGSI" little-endian
export const SEGMENT_FORMAT = 5;
export const DOC_BYTES = 40;
/** Documents per postings block of a sparse term. */
export const BLOCK_POSTINGS = 128;
/** Layout of a block: u32 last ordinal, u32 document stream end, u32 position stream end. */
export const BLOCK_BYTES = 12;
/** A term in at least 1/DENSE_SHARE of a segment's documents is stored dense (a bitmap and a byte code per document). */
export const DENSE_SHARE = 8;
/** Documents per chunk of a segment: a dense term stores its best code per chunk, a search bounds scores per chunk. */
export const CHUNK_DOCS = 1024;
/** Ranks per entry of a dense term's position offsets. */
export const DENSE_POSITION_BLOCK = 128;

/** Terms of exact tags start with NUL: no word of a text can (words are letters and digits). */
export const TAG_TERM_PREFIX = '\u0000';
/** Bigram terms start with U+0001 (then the two terms, a space between). */
export const BIGRAM_PREFIX = '\u0001';

export function bigramTerm(first: string, second: string): string {
  return BIGRAM_PREFIX + first + ' ' + second;
}

/** Bytes of a dense term's code dictionary of `n` entries (with its count). */
export function denseDictBytes(n: number): number {
  return 4 + Math.ceil((n * 3) / 4) * 4;
}

export interface SegmentHeader {
  start: number;
  end: number;
  docs: number;
  terms: string[];
  /** Blocks in the block table. */
  blocks: number;
}

/** One term's postings in a segment, decoded: local ordinals ascending, each with its positions. */
export interface Postings {
  ords: Int32Array;
  /** Positions of ords[i] are pos[posStart[i] .. posStart[i+1]). */
  posStart: Int32Array;
  pos: Int32Array;
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
