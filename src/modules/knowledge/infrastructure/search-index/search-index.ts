import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Logger } from '../../../../kernel/logger';
import type { HeldLock } from '../../../../kernel/files/file-lock';
import { makeDir } from '../../../../kernel/files/make-dir';
import { forEachLine } from '../line-reader';
import { parseNode } from '../ndjson-passes';
import { forgetManifest, graphIdentity, mergeStart, readManifestFile, SEGMENT_MAX_DOCS, writeManifestFile, type IndexManifest, type SegmentRef } from './index-manifest';
import { mergeSegments, segmentCache, segmentOfLines, writeSegmentFile, type AppendedLines } from './segment-files';
import { SegmentBuilder } from './segment-builder';
import { DamagedIndexError, LoadedSegment } from './segment-reader';

export { graphIdentity, mergeStart, SEGMENT_MAX_DOCS, type GraphIdentity, type IndexManifest, type SegmentRef } from './index-manifest';
export type { AppendedLines } from './segment-files';

/** The index folder beside a project's graph, and its manifest. */
export const SEARCH_DIR = 'knowledge_graph.search';
export const MANIFEST_FILE = 'manifest.json';
/** Bumped whenever the segment layout or the words indexed change: an index of another format is rebuilt. */
export const INDEX_FORMAT = 3;

export type IndexState = { fresh: true; manifest: IndexManifest } | { fresh: false; reason: string; manifest?: IndexManifest };

const SEGMENT_NAME = /^seg-(\d+)-\d+-\d+\.bin$/;

/**
 * A project's search index on disk (`<project>/knowledge_graph.search/`): immutable segment files, each the index of a
 * range of the graph file's bytes, and a manifest naming them with the graph's identity. Writers change it under the
 * project lock right after the graph (append → one new segment for the new bytes, merged with the newest ones as they
 * accumulate; any rewrite of the graph → a full rebuild); readers take no lock and trust the index only while the
 * manifest matches the graph file exactly and every segment loads and agrees with it. Anything else — no index, an
 * older format, a crash between the graph write and the index write, a hand edit — is a stale index: rebuilt from the
 * graph under the lock, with a log line.
 */
export class SearchIndexFiles {
  readonly dir: string;
  private readonly manifestFile: string;

  constructor(
    private readonly graph: string,
    projectDir: string,
    private readonly logger?: Logger,
  ) {
    this.dir = path.join(projectDir, SEARCH_DIR);
    this.manifestFile = path.join(this.dir, MANIFEST_FILE);
  }

  readManifest(): Promise<IndexManifest | undefined> {
    return readManifestFile(this.manifestFile);
  }

  /** Is the index exactly the graph's? Cheap: two stats when this process knows the manifest (segments are checked when loaded). */
  async state(): Promise<IndexState> {
    const [manifest, now] = await Promise.all([this.readManifest(), graphIdentity(this.graph)]);
    if (!manifest) return { fresh: false, reason: 'no index' };
    if (manifest.format !== INDEX_FORMAT) return { fresh: false, reason: `index format ${manifest.format}, expected ${INDEX_FORMAT}`, manifest };
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
      let seg = segmentCache.get(file);
      if (!seg) {
        seg = await LoadedSegment.load(file, ref);
        segmentCache.set(file, seg);
      }
      out.push(seg);
    }
    return out;
  }

  /** Drops cached segments of this index that the manifest no longer names. */
  private forget(keep: ReadonlySet<string>): void {
    for (const file of segmentCache.keys()) {
      if (path.dirname(file) === this.dir && !keep.has(path.basename(file))) segmentCache.delete(file);
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

  /**
   * Under the lock: indexes the whole graph anew, then removes what the old index left. A new generation, above every
   * segment left in the folder (a damaged manifest forgets its generation: names must never repeat, a process may
   * hold a segment of that name in its cache).
   */
  async rebuild(lock: HeldLock, reason: string, previousGeneration?: number): Promise<IndexManifest> {
    const started = Date.now();
    let generation = (previousGeneration ?? (await this.readManifest())?.generation ?? 0) + 1;
    for (const name of await fs.readdir(this.dir).catch(() => [] as string[])) {
      const m = SEGMENT_NAME.exec(name);
      if (m) generation = Math.max(generation, Number(m[1]) + 1);
    }
    const identity = await graphIdentity(this.graph);
    const segments = identity.size === 0 ? [] : await this.indexFrom(lock, 0, generation);
    const manifest = await this.commit(lock, { format: INDEX_FORMAT, generation, graph: await graphIdentity(this.graph), segments, docs: segments.reduce((n, s) => n + s.docs, 0) });
    if (reason !== 'graph rewritten' && reason !== 'new project') {
      this.logger?.warn('knowledge search index rebuilt from the graph', { graph: this.graph, reason, nodes: manifest.docs, ms: Date.now() - started });
    }
    return manifest;
  }

  /**
   * Under the lock, right after an append to the graph: indexes the new bytes as a segment, then merges the newest
   * segments as {@link mergeStart} says. A merge reads the segments' postings, not the graph: each node is parsed and
   * tokenized once. `before` is the manifest ensureFresh returned before the append; `appended`, what the append
   * wrote (its lines are indexed from memory when the graph is exactly the indexed bytes plus them).
   */
  async afterAppend(lock: HeldLock, before: IndexManifest, appended?: AppendedLines): Promise<IndexManifest> {
    // The append's own fstat is the graph as it is now (we hold the lock; an outside write after it makes the
    // manifest stale, which the next reader sees).
    const identity = appended ? { ino: appended.ino, size: appended.after, mtimeMs: appended.mtimeMs } : await graphIdentity(this.graph);
    const indexed = before.segments.length ? before.segments[before.segments.length - 1]!.end : 0;
    if (identity.ino !== before.graph.ino && before.graph.ino !== 0) return this.rebuild(lock, 'graph rewritten', before.generation);
    let segments = before.segments.slice();
    if (identity.size > indexed) {
      const fromMemory = appended ? segmentOfLines(indexed, appended) : undefined;
      if (fromMemory) {
        lock.assertHeld();
        // A manifest naming segments means the folder is there (if it went meanwhile, the write fails: the index stays stale).
        if (!before.segments.length) await makeDir(this.dir);
        segments.push(await writeSegmentFile(this.dir, fromMemory, before.generation));
      } else segments.push(...(await this.indexFrom(lock, indexed, before.generation)));
    }
    try {
      for (let from = mergeStart(segments.map((s) => s.docs)); from >= 0; from = mergeStart(segments.map((s) => s.docs))) {
        const merged = await mergeSegments(this.dir, segments.slice(from));
        lock.assertHeld();
        segments = [...segments.slice(0, from), await writeSegmentFile(this.dir, merged, before.generation)];
      }
    } catch (e) {
      if (!(e instanceof DamagedIndexError)) throw e;
      return this.rebuild(lock, e.message, before.generation);
    }
    return this.commit(lock, { ...before, format: INDEX_FORMAT, graph: identity, segments, docs: segments.reduce((n, s) => n + s.docs, 0) });
  }

  /** Indexes the graph from byte `start` to its end into segments of at most SEGMENT_MAX_DOCS nodes, written. */
  private async indexFrom(lock: HeldLock, start: number, generation: number): Promise<SegmentRef[]> {
    await makeDir(this.dir);
    const refs: SegmentRef[] = [];
    let builder = new SegmentBuilder(start, start);
    const full: SegmentBuilder[] = [];
    const write = async (b: SegmentBuilder) => {
      lock.assertHeld();
      refs.push(await writeSegmentFile(this.dir, b, generation));
    };
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
          for (const b of full.splice(0)) await write(b);
        },
      },
    );
    builder.end = bytes;
    for (const b of full.splice(0)) await write(b);
    await write(builder);
    return refs;
  }

  /** Publishes the manifest, then removes every file of the folder it does not name (old segments, a crash's leftovers). */
  private async commit(lock: HeldLock, manifest: IndexManifest): Promise<IndexManifest> {
    lock.assertHeld();
    if (!manifest.segments.length) await makeDir(this.dir);
    await writeManifestFile(this.manifestFile, manifest);
    const keep = new Set([MANIFEST_FILE, ...manifest.segments.map((s) => s.file)]);
    this.forget(keep);
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    await Promise.all(names.filter((n) => !keep.has(n)).map((n) => fs.rm(path.join(this.dir, n), { force: true }).catch(() => undefined)));
    return manifest;
  }

  /** Removes the index (the graph was removed): nothing stays to be trusted. */
  async remove(): Promise<void> {
    this.forget(new Set());
    forgetManifest(this.manifestFile);
    await fs.rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
