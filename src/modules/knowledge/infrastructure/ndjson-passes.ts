import { MALFORMED_REPORT_MAX, type MalformedLine, type MalformedReport } from '../application/ports/knowledge-store';
import { isDeletedNodeRecord, isStoredKnowledgeNode, normalizeStoredNode, type DeletedNodeRecord, type StoredKnowledgeNode } from '../domain/knowledge-node';
import * as fs from 'node:fs/promises';
import { toStorageError } from '../../../kernel/files/storage-errors';

/**
 * The NDJSON adapter's own vocabulary — streaming passes over lines, byte offsets, rebuilds — which never leaves
 * this folder: the port speaks in queries (application/ports/knowledge-store.ts).
 */

/** What a pass saw besides the nodes: lines read, malformed lines counted and (the first few) listed. */
export interface PassReport extends MalformedReport {
  lines: number;
}

export interface ScanOptions {
  /**
   * Cheap prefilter: only lines that contain one of these ids as a substring are parsed and visited (a line that
   * names none of them cannot matter to the caller). A live set — it may grow while the pass runs. With more than
   * {@link PREFILTER_MAX_IDS} ids every line is parsed instead. Malformed lines are only detected among lines parsed.
   */
  mentioning?: ReadonlySet<string>;
  signal?: AbortSignal;
}

/** What a rebuild does with one node: `undefined` keeps its line byte for byte, `null` drops it, a node replaces it. */
export type RebuildTransform = (node: StoredKnowledgeNode) => StoredKnowledgeNode | null | undefined;

export interface RebuildReport extends PassReport {
  dropped: number;
  rewritten: number;
  /** False when nothing changed (the file was left untouched). */
  committed: boolean;
}

/** Beyond this many ids the substring prefilter costs more than it saves: every line is parsed instead. */
export const PREFILTER_MAX_IDS = 64;
const EXCERPT_CHARS = 80;

export class MalformedCollector {
  count = 0;
  readonly list: MalformedLine[] = [];
  add(line: number, offset: number, text: string): void {
    this.count++;
    if (this.list.length < MALFORMED_REPORT_MAX) this.list.push({ line, offset, excerpt: text.slice(0, EXCERPT_CHARS) });
  }
  report(lines: number): PassReport {
    return { lines, malformedCount: this.count, malformed: this.list };
  }
}

export function parseNode(text: string): StoredKnowledgeNode | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isStoredKnowledgeNode(value) ? normalizeStoredNode(value) : undefined;
}

export function parseRecord(text: string): DeletedNodeRecord | undefined {
  try {
    const value: unknown = JSON.parse(text);
    if (!isDeletedNodeRecord(value)) return undefined;
    normalizeStoredNode(value.nodeData);
    return value;
  } catch {
    return undefined;
  }
}

/**
 * The id of a line written by the store (`{"id":"...",` first), read without parsing; undefined for any other shape
 * (hand-written lines, escapes in the id), which callers then parse.
 */
export function leadingId(text: string): string | undefined {
  if (!text.startsWith('{"id":"')) return undefined;
  const end = text.indexOf('"', 7);
  if (end < 0) return undefined;
  const id = text.slice(7, end);
  return id.includes('\\') || text.charCodeAt(end + 1) !== 44 /* , */ ? undefined : id;
}

const ID_PREFIX = Buffer.from('{"id":"');

/** False only for a line that starts with the id of a node not in `ids` (the common case, decided on the bytes). */
export function wantedLeadingId(raw: Buffer, ids: ReadonlySet<string>): boolean {
  // Plain loops: a native call per line (compare, indexOf) costs more than these few bytes.
  const start = ID_PREFIX.length;
  if (raw.length < start) return true;
  for (let i = 0; i < start; i++) if (raw[i] !== ID_PREFIX[i]) return true;
  let end = start;
  while (end < raw.length && raw[end] !== 0x22 /* " */) end++;
  if (end >= raw.length || raw[end + 1] !== 0x2c /* , */) return true;
  // Only the id is decoded (a backslash means an escape: let the full line decide).
  const id = raw.toString('utf8', start, end);
  return id.includes('\\') || ids.has(id);
}

export function mentionsAny(text: string, ids: ReadonlySet<string> | undefined): boolean {
  if (!ids || ids.size > PREFILTER_MAX_IDS) return true;
  for (const id of ids) if (text.includes(id)) return true;
  return false;
}

/** Runs a read pass, turning I/O failures (EACCES, EISDIR, EIO) into a StorageError naming the file. */
export async function readIo<T>(file: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw toStorageError(e, 'read', file);
  }
}

/** True when something exists at `file` (any kind of entry). */
export async function fileExists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}
