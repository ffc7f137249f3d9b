import * as fs from 'node:fs/promises';
import * as fsSync from 'node:fs';
import { writeFileAtomic } from '../../../../kernel/files/atomic-write';
import { errnoCode, toStorageError } from '../../../../kernel/files/storage-errors';

/** Nodes per segment at most (bounds the memory of building or merging one). */
export const SEGMENT_MAX_DOCS = 65_536;
/** The newest segments are merged into the one before them when they hold this many times its nodes. */
const MERGE_RATIO = 3;

export interface GraphIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

export interface SegmentRef {
  file: string;
  /** The graph bytes the segment indexes now (a rewrite since it was written may have moved them). */
  start: number;
  end: number;
  /** Documents in the segment file, deleted ones included. */
  docs: number;
  /**
   * What rewrites of the graph since the segment was written did to it (search-index.ts, afterRewrite; absent: nothing):
   * `deleted`, its documents whose lines a rewrite removed (local ordinals, ascending) — never found, never counted;
   * `shift`, where its live documents' lines are now (rewrite-map.ts, shiftedOffset); `header`, the bytes the file
   * itself says it indexes ([start, end) when it was written, checked on load).
   */
  deleted?: number[];
  shift?: number[];
  header?: [number, number];
}

/** What the index covers: the graph file as it was (inode, size, mtime) and the segments, in graph order. */
export interface IndexManifest {
  format: number;
  /** Counts full rebuilds: a search cursor from another generation no longer fits. */
  generation: number;
  graph: GraphIdentity;
  segments: SegmentRef[];
  docs: number;
  /** A random name given at each full rebuild: the tail record and a process's tail in memory name the index they extend. */
  built?: string;
}

/**
 * The graph file's identity now (a missing file: all zeros). A synchronous stat: a few µs, where a thread-pool round
 * trip costs 25 µs and more on a loaded machine, on every add.
 */
export function graphIdentity(graph: string): GraphIdentity {
  try {
    const st = fsSync.statSync(graph);
    return { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
  } catch (e) {
    if (errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ENOTDIR') return { ino: 0, size: 0, mtimeMs: 0 };
    throw toStorageError(e, 'read', graph);
  }
}

export function sameIdentity(a: GraphIdentity, b: GraphIdentity): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/**
 * Manifests this process wrote or read, by path, with the identity (inode, size, mtime) of the file they were read
 * from: a manifest file with that identity again is that content (a manifest is only ever replaced by a rename, which
 * gives the path another inode), so one stat stands for reading and parsing it. Whatever the manifest says is still
 * checked against the graph and the segments.
 */
const known = new Map<string, GraphIdentity & { manifest: IndexManifest }>();

function same(a: GraphIdentity, b: { ino: number; size: number; mtimeMs: number }): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/** The manifest at `file`; undefined when there is none or it is not one (damaged, another shape). */
export async function readManifestFile(file: string): Promise<IndexManifest | undefined> {
  let handle: fs.FileHandle | undefined;
  try {
    const cached = known.get(file);
    if (cached && same(cached, fsSync.statSync(file))) return cached.manifest;
    handle = await fs.open(file, 'r');
    const st = await handle.stat();
    const text = (await handle.readFile()).toString('utf8');
    const m = parseManifest(text);
    if (m) known.set(file, { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs, manifest: m });
    else known.delete(file);
    return m;
  } catch (e) {
    known.delete(file);
    if (errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ENOTDIR') return undefined;
    throw toStorageError(e, 'read', file);
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

function parseManifest(text: string): IndexManifest | undefined {
  try {
    const m = JSON.parse(text) as IndexManifest;
    if (typeof m !== 'object' || m === null || !Array.isArray(m.segments) || typeof m.graph !== 'object' || m.graph === null) return undefined;
    return m;
  } catch {
    return undefined;
  }
}

/**
 * Replaces the manifest at `file`: a temp file written whole, then renamed over it (a reader sees the old manifest or
 * the new one). Not fsynced: the index is derived and never trusted — a manifest lost to a power cut is rebuilt.
 */
export async function writeManifestFile(file: string, manifest: IndexManifest): Promise<void> {
  known.delete(file);
  const written = await writeFileAtomic(file, JSON.stringify(manifest) + '\n', { sync: false });
  known.set(file, { ...written, manifest });
}

/** Forgets what is known of the manifest at `file` (its index was removed). */
export function forgetManifest(file: string): void {
  known.delete(file);
}

/**
 * Where the merge of the newest segments starts (they all are merged into one), or -1: the smallest `i` whose
 * followers hold at least MERGE_RATIO × its nodes, the whole run fitting in SEGMENT_MAX_DOCS; else the last two when
 * both fit in one and the newest is big (a quarter of a segment or more). Sizes so fall geometrically from the oldest
 * segment to the newest whatever the appends' sizes: O(log n) segments, a node's postings copied O(log n) times.
 */
export function mergeStart(docs: readonly number[]): number {
  const n = docs.length;
  if (n < 2) return -1;
  let best = -1;
  let after = docs[n - 1]!;
  for (let i = n - 2; i >= 0 && after + docs[i]! <= SEGMENT_MAX_DOCS; i--) {
    if (after >= MERGE_RATIO * docs[i]!) best = i;
    after += docs[i]!;
  }
  if (best < 0 && docs[n - 1]! + docs[n - 2]! <= SEGMENT_MAX_DOCS && docs[n - 1]! * 4 >= SEGMENT_MAX_DOCS) best = n - 2;
  return best;
}
