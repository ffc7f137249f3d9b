import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Logger } from '../../../../kernel/logger';
import type { HeldLock } from '../../../../kernel/files/file-lock';
import { writeFileAtomic } from '../../../../kernel/files/atomic-write';
import { makeDir } from '../../../../kernel/files/make-dir';
import { errnoCode, toStorageError } from '../../../../kernel/files/storage-errors';
import { forEachLine } from '../line-reader';
import { parseNode } from '../ndjson-passes';
import { SegmentBuilder } from './segment-builder';
import { DamagedIndexError, LoadedSegment } from './segment-reader';

/** The index folder beside a project's graph, and its manifest. */
export const SEARCH_DIR = 'knowledge_graph.search';
export const MANIFEST_FILE = 'manifest.json';
/** Bumped whenever the segment layout or the words indexed change: an index of another format is rebuilt. */
export const INDEX_FORMAT = 2;
/** Nodes per segment at most (bounds the memory of building one). */
export const SEGMENT_MAX_DOCS = 65_536;
/** The newest segments are merged into the one before them when they hold this many times its nodes. */
const MERGE_RATIO = 3;

export interface GraphIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

/** What an append wrote: the graph's size before and after it, and its lines (without their `\n`). */
export interface AppendedLines {
  before: number;
  after: number;
  lines: readonly string[];
}

export interface SegmentRef {
  file: string;
  start: number;
  end: number;
  docs: number;
}

/** What the index covers: the graph file as it was (inode, size, mtime) and the segments, in graph order. */
export interface IndexManifest {
  format: number;
  /** Counts full rebuilds: a search cursor from another generation no longer fits. */
  generation: number;
  graph: GraphIdentity;
  segments: SegmentRef[];
  docs: number;
}

export type IndexState = { fresh: true; manifest: IndexManifest } | { fresh: false; reason: string; manifest?: IndexManifest };

/** The graph file's identity now (a missing file: all zeros). */
export async function graphIdentity(graph: string): Promise<GraphIdentity> {
  try {
    const st = await fs.stat(graph);
    return { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return { ino: 0, size: 0, mtimeMs: 0 };
    throw toStorageError(e, 'read', graph);
  }
}

/**
 * Where the merge of the newest segments starts (they all are merged into one), or -1: the smallest `i` whose
 * followers hold at least MERGE_RATIO × its nodes, the whole run fitting in SEGMENT_MAX_DOCS; else the last two when
 * both fit in one and the newest is big (a quarter of a segment or more).
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

/**
 * A project's search index on disk (`<project>/knowledge_graph.search/`): immutable segment files, each the index of a
 * range of the graph file's bytes, and a manifest naming them with the graph's identity. Writers change it under the
 * project lock right after the graph (append → one new segment for the new bytes; any rewrite of the graph → a full
 * rebuild); readers take no lock and trust the index only while the manifest matches the graph file exactly and
 * every segment loads and agrees with it. Anything else — no index, an older format, a crash between the graph write
 * and the index write, a hand edit — is a stale index: rebuilt from the graph under the lock, with a log line.
 */
export class SearchIndexFiles {
  readonly dir: string;
  private readonly manifestFile: string;
  private static readonly cache = new Map<string, LoadedSegment>();

  constructor(
    private readonly graph: string,
    projectDir: string,
    private readonly logger?: Logger,
  ) {
    this.dir = path.join(projectDir, SEARCH_DIR);
    this.manifestFile = path.join(this.dir, MANIFEST_FILE);
  }

  async readManifest(): Promise<IndexManifest | undefined> {
    let text: string;
    try {
      text = await fs.readFile(this.manifestFile, 'utf8');
    } catch (e) {
      if (errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ENOTDIR') return undefined;
      throw toStorageError(e, 'read', this.manifestFile);
    }
    try {
      const m = JSON.parse(text) as IndexManifest;
      if (typeof m !== 'object' || m === null || !Array.isArray(m.segments) || typeof m.graph !== 'object') return undefined;
      return m;
    } catch {
      return undefined;
    }
  }

  /** Is the index exactly the graph's? Cheap: the manifest and one stat (segments are checked when loaded). */
  async state(): Promise<IndexState> {
    const manifest = await this.readManifest();
    if (!manifest) return { fresh: false, reason: 'no index' };
    if (manifest.format !== INDEX_FORMAT) return { fresh: false, reason: `index format ${manifest.format}, expected ${INDEX_FORMAT}`, manifest };
    const now = await graphIdentity(this.graph);
    const g = manifest.graph;
    if (g.ino !== now.ino || g.size !== now.size || g.mtimeMs !== now.mtimeMs) {
      return { fresh: false, reason: `the graph changed since it was indexed (${g.size} → ${now.size} bytes${g.ino !== now.ino ? ', replaced' : ''})`, manifest };
    }
    let at = 0;
    for (const s of manifest.segments) {
      if (s.start !== at || s.end < s.start || typeof s.file !== 'string' || s.file.includes('/')) return { fresh: false, reason: 'the manifest does not cover the graph', manifest };
      at = s.end;
    }
    if (at !== now.size) return { fresh: false, reason: 'the manifest does not cover the graph', manifest };
    return { fresh: true, manifest };
  }

  /** The segments of a fresh manifest, loaded (cached by file name: segments never change once written). */
  async load(manifest: IndexManifest): Promise<LoadedSegment[]> {
    const out: LoadedSegment[] = [];
    for (const ref of manifest.segments) {
      const file = path.join(this.dir, ref.file);
      let seg = SearchIndexFiles.cache.get(file);
      if (!seg) {
        seg = await LoadedSegment.load(file, ref);
        SearchIndexFiles.cache.set(file, seg);
      }
      out.push(seg);
    }
    return out;
  }

  /** Drops cached segments of this index that the manifest no longer names. */
  private forget(keep: ReadonlySet<string>): void {
    for (const file of SearchIndexFiles.cache.keys()) {
      if (path.dirname(file) === this.dir && !keep.has(path.basename(file))) SearchIndexFiles.cache.delete(file);
    }
  }

  /** Under the lock: rebuilds when stale (logging why), so an append can extend the index. */
  async ensureFresh(lock: HeldLock): Promise<IndexManifest> {
    const st = await this.state();
    if (st.fresh) {
      try {
        await this.load(st.manifest);
        return st.manifest;
      } catch (e) {
        if (!(e instanceof DamagedIndexError)) throw e;
        return this.rebuild(lock, e.message, st.manifest.generation);
      }
    }
    // A project's first write (no graph yet) builds its empty index: nothing was stale, nothing is logged.
    const quiet = !st.manifest && (await graphIdentity(this.graph)).size === 0;
    return this.rebuild(lock, quiet ? 'new project' : st.reason, st.manifest?.generation ?? 0);
  }

  /** Under the lock: indexes the whole graph anew (a new generation), then removes what the old index left. */
  async rebuild(lock: HeldLock, reason: string, previousGeneration?: number): Promise<IndexManifest> {
    const started = Date.now();
    const generation = (previousGeneration ?? (await this.readManifest())?.generation ?? 0) + 1;
    const identity = await graphIdentity(this.graph);
    const segments = identity.size === 0 ? [] : await this.indexFrom(lock, 0, generation);
    const manifest = await this.commit(lock, { format: INDEX_FORMAT, generation, graph: await graphIdentity(this.graph), segments, docs: segments.reduce((n, s) => n + s.docs, 0) });
    if (reason !== 'graph rewritten' && reason !== 'new project') {
      this.logger?.warn('knowledge search index rebuilt from the graph', { graph: this.graph, reason, nodes: manifest.docs, ms: Date.now() - started });
    }
    return manifest;
  }

  /**
   * Under the lock, right after an append to the graph: indexes the new bytes as a segment and merges the last
   * segments while {@link MERGE_FAN_IN} of one size class follow each other. A merge reads the segments' postings, not
   * the graph: each node is parsed and tokenized once; its postings are copied again O(log n) times over the
   * project's life. `before` is the manifest ensureFresh returned before the append; `appended`, what the append
   * wrote (its lines are indexed from memory when the graph is exactly the indexed bytes plus them).
   */
  async afterAppend(lock: HeldLock, before: IndexManifest, appended?: AppendedLines): Promise<IndexManifest> {
    const identity = await graphIdentity(this.graph);
    const indexed = before.segments.length ? before.segments[before.segments.length - 1]!.end : 0;
    if (identity.ino !== before.graph.ino && before.graph.ino !== 0) return this.rebuild(lock, 'graph rewritten', before.generation);
    let segments = before.segments.slice();
    if (identity.size > indexed) {
      const fromMemory = appended && appended.before === indexed && appended.after === identity.size ? this.segmentOfLines(indexed, appended) : undefined;
      if (fromMemory) segments.push(await this.writeSegment(lock, fromMemory, before.generation));
      else segments.push(...(await this.indexFrom(lock, indexed, before.generation)));
    }
    try {
      segments = await this.mergeTail(lock, segments, before.generation);
    } catch (e) {
      if (!(e instanceof DamagedIndexError)) throw e;
      return this.rebuild(lock, e.message, before.generation);
    }
    return this.commit(lock, { ...before, format: INDEX_FORMAT, graph: identity, segments, docs: segments.reduce((n, s) => n + s.docs, 0) });
  }

  /**
   * Merges the newest segments into the one before them once they hold {@link MERGE_RATIO} times its nodes (the
   * longest such run that fits in a segment), so sizes fall geometrically from the oldest segment to the newest
   * whatever the appends' sizes: O(log n) segments, and a node's postings are copied O(log n) times. Two big
   * segments that fit in one are merged too (fewer segments for a search to visit).
   */
  private async mergeTail(lock: HeldLock, segments: SegmentRef[], generation: number): Promise<SegmentRef[]> {
    for (;;) {
      const from = mergeStart(segments.map((s) => s.docs));
      if (from < 0) return segments;
      const merged = new SegmentBuilder(segments[from]!.start, segments[from]!.start);
      for (const ref of segments.slice(from)) await merged.appendSegment(await this.readWhole(ref));
      segments = [...segments.slice(0, from), await this.writeSegment(lock, merged, generation)];
    }
  }

  /** A segment file read whole (a merge decodes all of its postings), checked against its manifest entry. */
  private async readWhole(ref: SegmentRef): Promise<LoadedSegment> {
    const file = path.join(this.dir, ref.file);
    let seg: LoadedSegment;
    try {
      seg = LoadedSegment.fromBuffer(await fs.readFile(file), file);
    } catch (e) {
      throw e instanceof DamagedIndexError ? e : new DamagedIndexError(`${file}: ${(e as Error).message}`);
    }
    const h = seg.header;
    if (h.start !== ref.start || h.end !== ref.end || h.docs !== ref.docs) {
      throw new DamagedIndexError(`${file}: covers bytes ${h.start}-${h.end} (${h.docs} nodes), the manifest says ${ref.start}-${ref.end} (${ref.docs})`);
    }
    return seg;
  }

  /**
   * The segment of lines just appended at `at`, built from the lines in memory (the bytes the append wrote: a `\n`
   * first when the graph did not end with one, then each line and its `\n`); undefined when they are not exactly
   * the appended bytes or too many for one segment (then the graph is read).
   */
  private segmentOfLines(at: number, appended: AppendedLines): SegmentBuilder | undefined {
    if (appended.lines.length > SEGMENT_MAX_DOCS) return undefined;
    const lengths = appended.lines.map((l) => Buffer.byteLength(l, 'utf8'));
    const payload = lengths.reduce((n, l) => n + l + 1, 0);
    const gap = appended.after - appended.before - payload;
    if (gap !== 0 && gap !== 1) return undefined;
    const b = new SegmentBuilder(at, appended.after);
    let offset = at + gap;
    appended.lines.forEach((line, i) => {
      const node = parseNode(line);
      if (node) b.add(node, offset, lengths[i]!);
      offset += lengths[i]! + 1;
    });
    return b;
  }

  /** Indexes the graph from byte `start` to its end into segments of at most SEGMENT_MAX_DOCS nodes, written. */
  private async indexFrom(lock: HeldLock, start: number, generation: number): Promise<SegmentRef[]> {
    await makeDir(this.dir);
    const refs: SegmentRef[] = [];
    let builder = new SegmentBuilder(start, start);
    const full: SegmentBuilder[] = [];
    const { bytes } = await forEachLine(
      this.graph,
      (text, offset, _lineNo, _terminated, raw) => {
        if (builder.size >= SEGMENT_MAX_DOCS) {
          builder.end = offset;
          full.push(builder);
          builder = new SegmentBuilder(offset, offset);
        }
        if (text === '') return;
        const node = parseNode(text);
        if (node) builder.add(node, offset, raw.length);
      },
      {
        start,
        afterChunk: async () => {
          for (const b of full.splice(0)) refs.push(await this.writeSegment(lock, b, generation));
        },
      },
    );
    builder.end = bytes;
    for (const b of full.splice(0)) refs.push(await this.writeSegment(lock, b, generation));
    refs.push(await this.writeSegment(lock, builder, generation));
    return refs;
  }

  private async writeSegment(lock: HeldLock, b: SegmentBuilder, generation: number): Promise<SegmentRef> {
    const file = `seg-${generation}-${b.start}-${b.end}.bin`;
    lock.assertHeld();
    // Not fsynced: the index is derived and never trusted — a segment lost to a power cut fails its checks and is rebuilt.
    await writeFileAtomic(path.join(this.dir, file), b.encode(), { sync: false });
    SearchIndexFiles.cache.delete(path.join(this.dir, file));
    return { file, start: b.start, end: b.end, docs: b.size };
  }

  private async commit(lock: HeldLock, manifest: IndexManifest): Promise<IndexManifest> {
    lock.assertHeld();
    await makeDir(this.dir);
    await writeFileAtomic(this.manifestFile, JSON.stringify(manifest) + '\n', { sync: false });
    const keep = new Set([MANIFEST_FILE, ...manifest.segments.map((s) => s.file)]);
    this.forget(keep);
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    await Promise.all(names.filter((n) => !keep.has(n)).map((n) => fs.rm(path.join(this.dir, n), { force: true }).catch(() => undefined)));
    return manifest;
  }

  /** Removes the index (the graph was removed): nothing stays to be trusted. */
  async remove(): Promise<void> {
    this.forget(new Set());
    await fs.rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
