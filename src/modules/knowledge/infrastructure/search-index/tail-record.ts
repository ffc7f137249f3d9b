import * as fs from 'node:fs';
import { writeRecordInPlace } from '../../../../kernel/files/atomic-write';
import { errnoCode, toStorageError } from '../../../../kernel/files/storage-errors';
import type { GraphIdentity } from './index-manifest';

/** The record file beside the manifest: `<project>/knowledge_graph.search/tail.json`. */
export const TAIL_FILE = 'tail.json';

/**
 * What the last append under the lock left past the manifest's segments: the graph's identity (inode, size, mtime)
 * right after it, and which index it extends — the manifest's `built` and `generation` and the end of the bytes its
 * segments cover. A reader whose graph is exactly that identity knows every byte past `covered` was appended by a
 * writer of this index under the lock (each one checks the graph was exactly the previous record before appending),
 * so it indexes those bytes from the graph itself; any other change of the graph (a hand edit, a crash between the
 * append and this record) makes the index stale. The record is the per-add part of the exact-identity check the
 * manifest used to carry alone; it is rewritten in place (7 µs) where the manifest is replaced by a rename.
 */
export interface TailRecord {
  built: string;
  generation: number;
  covered: number;
  graph: GraphIdentity;
}

/** A torn or foreign record never matches: its fields come with a checksum of their text. */
function checksum(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

export function writeTailRecord(file: string, r: TailRecord): void {
  const body = JSON.stringify({ built: r.built, generation: r.generation, covered: r.covered, graph: { ino: r.graph.ino, size: r.graph.size, mtimeMs: r.graph.mtimeMs } });
  writeRecordInPlace(file, Buffer.from(`${body}\n${checksum(body)}\n`, 'utf8'));
}

/** The record at `file`; undefined when there is none, or it is torn or damaged (the caller treats the tail as unknown). */
export function readTailRecord(file: string): TailRecord | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ENOTDIR') return undefined;
    throw toStorageError(e, 'read', file);
  }
  const [body, sum] = text.split('\n');
  if (body === undefined || sum === undefined || String(checksum(body)) !== sum) return undefined;
  try {
    const r = JSON.parse(body) as TailRecord;
    const g = r.graph;
    if (typeof r.built !== 'string' || typeof r.generation !== 'number' || typeof r.covered !== 'number' || typeof g !== 'object' || g === null) return undefined;
    if (typeof g.ino !== 'number' || typeof g.size !== 'number' || typeof g.mtimeMs !== 'number') return undefined;
    return r;
  } catch {
    return undefined;
  }
}
