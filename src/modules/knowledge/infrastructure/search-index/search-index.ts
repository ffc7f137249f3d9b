import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../../../kernel/logger';
import type { HeldLock } from '../../../../kernel/files/file-lock';
import { makeDir } from '../../../../kernel/files/make-dir';
import { readGraphRange } from './graph-range';
import { indexGraph } from './index-build';
import { forgetManifest, graphIdentity, readManifestFile, sameIdentity, SEGMENT_MAX_DOCS, writeManifestFile, type GraphIdentity, type IndexManifest, type SegmentRef } from './index-manifest';
import { IndexTail, type AppendedLines } from './index-tail';
import { segmentCache } from './segment-files';
import { encodeFlush, planFlush, writeEncoded, writeFlush } from './tail-flush';
import { FlushJob } from './flush-job';
import { DamagedIndexError, LoadedSegment } from './segment-reader';
import { readTailRecord, TAIL_FILE, writeTailRecord } from './tail-record';
import { movedOffset, type RewriteTrack } from './rewrite-map';
import { followRewrite } from './follow-rewrite';
import { overlayOf } from './segment-overlay';

export { graphIdentity, mergeStart, SEGMENT_MAX_DOCS, type GraphIdentity, type IndexManifest, type SegmentRef } from './index-manifest';
export type { AppendedLines, StagedAppend } from './index-tail';
export { TAIL_FILE } from './tail-record';

/** The index folder beside a project's graph, and its manifest. */
export const SEARCH_DIR = 'knowledge_graph.search';
export const MANIFEST_FILE = 'manifest.json';
/**
 * Bumped whenever the segment layout or the words indexed change: an index of another format is rebuilt. 5: the
 * words are PostgreSQL's (non-ASCII words stemmed, marks outside the diacritic blocks kept, per-character lower case,
 * words of 2,047 bytes skipped without a position; domain/search/search-text.ts). 6: the ranking is PostgreSQL's
 * (Σ idf × ts_rank impact, no length normalization), so a dense term's best code per chunk is the one of highest
 * impact (segment format 5): format 5's chunks named the one of highest weighted frequency, which would not bound.
 */
export const INDEX_FORMAT = 6;

/** The index as it stands: the manifest's segments cover the graph's bytes [0, covered), the tail the rest. */
export interface IndexView {
  manifest: IndexManifest;
  covered: number;
  tail: IndexTail;
}

export type IndexState = { fresh: true; view: IndexView } | { fresh: false; reason: string; manifest?: IndexManifest };

/** Where a store keeps a project's tail between calls (its process's memory of it; another process has its own). */
export interface TailSlot {
  tail?: IndexTail;
}

/** When the tail is written as segments: once it holds this many nodes or graph bytes (and on a clean shutdown). */
export interface FlushPolicy {
  nodes: number;
  bytes: number;
  /**
   * A tail of at least this many nodes is written in the background: its segments are encoded in the fsync's time of
   * the adds after the one that reaches the policy (search-index.ts, afterAppend), the manifest written by the add
   * that finds them ready. Smaller tails (tests' policies) are written by the add itself.
   */
  background: number;
}
// A tail written as a quarter of a segment or more is rarely merged again (index-manifest.ts, mergeStart): each node's
// postings are encoded about once. Smaller tails cost merges: 4,096 nodes made the add 0.47x the bare append, 20 µs a node.
// Writing one in the add that reached the policy cost that add 150-400 ms (encoding 51,800 nodes and copying a
// segment's postings into the merge): about 0.5 ms a batch of 100, amortized, the largest part of the index's cost.
export const DEFAULT_FLUSH: FlushPolicy = { nodes: SEGMENT_MAX_DOCS, bytes: 8 << 20, background: 4096 };

const SEGMENT_NAME = /^seg-(\d+)-\d+-\d+\.bin$/;

/**
 * A project's search index on disk (`<project>/knowledge_graph.search/`): immutable segment files, each the index of a
 * range of the graph file's bytes, a manifest naming them with the graph's identity when they were written, and the
 * tail record (tail-record.ts): the graph's identity after the last append since. The newest nodes — the bytes past
 * the segments — are indexed in memory (IndexTail) and written as segments only once they fill one or 8 MiB: the graph
 * is the log. Writers change the index under the project lock right after the graph (append → the tail grows, the
 * record is rewritten, the tail flushed when big; a rewrite of the graph → the segments marked, {@link afterRewrite});
 * readers take no lock and trust the index only while the graph is exactly the manifest's or the tail record's, and every segment loads
 * and agrees with it; a process that did not write the tail indexes it from the graph's bytes. Anything else — no
 * index, an older format, a crash between the graph write and the record, a hand edit — is a stale index: rebuilt
 * from the graph under the lock, with a log line.
 */
export class SearchIndexFiles {
  readonly dir: string;
  private readonly manifestFile: string;
  private readonly tailFile: string;

  constructor(
    private readonly graph: string,
    projectDir: string,
    private readonly logger?: Logger,
    private readonly slot: TailSlot = {},
    private readonly flushPolicy: FlushPolicy = DEFAULT_FLUSH,
  ) {
    this.dir = path.join(projectDir, SEARCH_DIR);
    this.manifestFile = path.join(this.dir, MANIFEST_FILE);
    this.tailFile = path.join(this.dir, TAIL_FILE);
  }

  readManifest(): Promise<IndexManifest | undefined> {
    return readManifestFile(this.manifestFile);
  }

  /**
   * Is the index the graph's, the graph being `now` (a reader passes its open file's fstat, and `read` reads that
   * file's bytes)? Cheap when this process's tail is at `now` (a stat of the manifest); else the tail record is read,
   * and the bytes appended since this process last looked are indexed into its tail.
   */
  async state(now: GraphIdentity, read: (from: number, to: number) => Buffer): Promise<IndexState> {
    const manifest = await this.readManifest();
    if (!manifest) return { fresh: false, reason: 'no index' };
    if (manifest.format !== INDEX_FORMAT) return { fresh: false, reason: `index format ${manifest.format}, expected ${INDEX_FORMAT}`, manifest };
    let covered = 0;
    for (const s of manifest.segments) {
      if (s.start !== covered || s.end < s.start || typeof s.file !== 'string' || s.file.includes('/')) return { fresh: false, reason: 'the manifest does not cover the graph', manifest };
      covered = s.end;
    }
    const g = manifest.graph;
    if (covered !== g.size) return { fresh: false, reason: 'the manifest does not cover the graph', manifest };
    if ((g.ino !== now.ino && g.ino !== 0) || now.size < covered) {
      return { fresh: false, reason: `the graph changed since it was indexed (${g.size} → ${now.size} bytes${g.ino !== now.ino ? ', replaced' : ''})`, manifest };
    }
    const key = `${manifest.built ?? ''}/${manifest.generation}/${covered}`;
    const mine = this.slot.tail;
    const ours = mine && mine.key === key && mine.identity.ino === now.ino ? mine : undefined;
    // A tail past `now` is newer than the caller's stat (an append of this process since) or the graph was cut: not used.
    let tail = ours && ours.end <= now.size ? ours : undefined;
    if (tail && sameIdentity(tail.identity, now)) return { fresh: true, view: { manifest, covered, tail } };
    if (sameIdentity(g, now)) {
      tail = new IndexTail(key, covered, now);
    } else {
      const r = readTailRecord(this.tailFile);
      if (!r || r.built !== (manifest.built ?? '') || r.generation !== manifest.generation || r.covered !== covered || !sameIdentity(r.graph, now)) {
        return { fresh: false, reason: `the graph changed since it was indexed (${g.size} → ${now.size} bytes)`, manifest };
      }
      // Every byte past the tail this process holds was appended under the lock since: index them from the graph.
      tail ??= new IndexTail(key, covered, { ino: now.ino, size: covered, mtimeMs: 0 });
      const bytes = read(tail.end, now.size);
      if (bytes.length !== now.size - tail.end) return { fresh: false, reason: 'the graph changed while it was read', manifest };
      tail.addBytes(bytes, now);
    }
    if (!ours || tail === ours || ours.end <= tail.end) this.slot.tail = tail;
    return { fresh: true, view: { manifest, covered, tail } };
  }

  /** The segments of a fresh manifest, loaded (cached by file name: segments never change once written). */
  async load(manifest: IndexManifest): Promise<LoadedSegment[]> {
    const out: LoadedSegment[] = [];
    for (const ref of manifest.segments) {
      const file = path.join(this.dir, ref.file);
      let seg = segmentCache.get(file);
      if (!seg) {
        seg = await LoadedSegment.load(file, ref.header ? { start: ref.header[0], end: ref.header[1], docs: ref.docs } : ref);
        segmentCache.set(file, seg);
      }
      // A rewrite's marks that do not fit the segment: damaged (rebuilt), found here rather than by a search.
      overlayOf(ref, seg);
      out.push(seg);
    }
    return out;
  }

  /** Drops cached segments of this index that the manifest no longer names. */
  private forget(keep: ReadonlySet<string>): void {
    for (const file of segmentCache.keys()) if (path.dirname(file) === this.dir && !keep.has(path.basename(file))) segmentCache.delete(file);
  }

  /**
   * Under the lock: the index as it stands (rebuilt when stale, logging why), so an append can extend it. `load`
   * false: its segments are not loaded (a writer's view before a write: what the write reads of a segment — a
   * flush's merge, a rewrite's doc offsets — is checked as it is read, and a damaged one rebuilds the index then).
   */
  async ensureFresh(lock: HeldLock, load = true): Promise<IndexView> {
    const now = graphIdentity(this.graph);
    const st = await this.state(now, (from, to) => readGraphRange(this.graph, from, to));
    if (st.fresh) {
      if (!load) return st.view;
      try {
        await this.load(st.view.manifest);
        return st.view;
      } catch (e) {
        if (!(e instanceof DamagedIndexError)) throw e;
        return this.rebuild(lock, e.message, st.view.manifest.generation);
      }
    }
    // A project's first write (no graph yet) builds its empty index: nothing was stale, nothing is logged.
    const quiet = !st.manifest && now.size === 0;
    return this.rebuild(lock, quiet ? 'new project' : st.reason, st.manifest?.generation ?? 0);
  }

  /**
   * Under the lock: indexes the whole graph anew, then removes what the old index left. A new generation, above every
   * segment left in the folder (a damaged manifest forgets its generation: names must never repeat, a process may
   * hold a segment of that name in its cache), and a new `built` name (no tail of the old index is ever taken for it).
   */
  async rebuild(lock: HeldLock, reason: string, previousGeneration?: number): Promise<IndexView> {
    const started = Date.now();
    const generation = await this.nextGeneration(previousGeneration);
    this.slot.tail = undefined;
    const identity = graphIdentity(this.graph);
    const segments = identity.size === 0 ? [] : await indexGraph(this.graph, this.dir, lock, 0, generation);
    const graph = graphIdentity(this.graph);
    const manifest = await this.commit(lock, { format: INDEX_FORMAT, generation, built: randomBytes(6).toString('hex'), graph, segments, docs: segments.reduce((n, s) => n + s.docs, 0) });
    if (reason !== 'graph rewritten' && reason !== 'new project') {
      this.logger?.warn('knowledge search index rebuilt from the graph', { graph: this.graph, reason, nodes: manifest.docs, ms: Date.now() - started });
    }
    return this.emptyTail(manifest);
  }

  /** A generation above the manifest's and every segment's left in the folder: a segment's name is never used twice. */
  private async nextGeneration(previousGeneration?: number): Promise<number> {
    let generation = (previousGeneration ?? (await this.readManifest())?.generation ?? 0) + 1;
    for (const name of await fs.readdir(this.dir).catch(() => [] as string[])) {
      const m = SEGMENT_NAME.exec(name);
      if (m) generation = Math.max(generation, Number(m[1]) + 1);
    }
    return generation;
  }

  /**
   * Under the lock, right after a streaming rewrite of the graph (a delete, a summary recalculation) renamed its new
   * file in — `rw` says what it did to the old file's lines (rewrite-map.ts) — and `before` is the index of the old
   * file exactly: the index follows it instead of being built again. Each segment stays as it is written; its entry
   * in the manifest marks the documents whose lines were dropped as deleted (searches leave them out of matches and
   * statistics) and maps its live documents' offsets to the new file (SegmentRef.deleted, .shift, .header). A segment
   * holding a rewritten line — or left with half of its documents deleted — is indexed again from the new file's
   * bytes of its range (at most a segment's worth of nodes tokenized). The tail (the bytes past the segments) is
   * indexed again from the new file (at most a flush policy's worth). Then a new generation's manifest (search
   * cursors of the old one are stale), the tail record when there is a tail. Killed anywhere before the manifest,
   * the manifest is the old graph's (another inode): stale, rebuilt; between the manifest and the tail record, the
   * two disagree: stale, rebuilt. Anything that does not add up is a full rebuild.
   */
  async afterRewrite(lock: HeldLock, before: IndexView, rw: RewriteTrack): Promise<IndexView> {
    const { manifest, tail } = before;
    const result = rw.result;
    // The index already holds the new file (a view taken after the rename: a rebuild read it).
    if (result && sameIdentity(tail.identity, result)) return before;
    const previous = manifest.generation;
    const source = rw.source;
    if (!source || !result || rw.read !== source.size || !sameIdentity(tail.identity, source) || (manifest.graph.ino !== 0 && manifest.graph.ino !== source.ino)) {
      return this.rebuild(lock, 'graph rewritten', previous);
    }
    tail.pending = undefined;
    this.slot.tail = undefined;
    const generation = await this.nextGeneration(previous);
    let segments: SegmentRef[];
    try {
      // Each segment's doc offsets: from the segment loaded in this process, else read alone (not kept).
      const docsOf = (ref: SegmentRef) => {
        const file = path.join(this.dir, ref.file);
        const [start, end] = ref.header ?? [ref.start, ref.end];
        return Promise.resolve(segmentCache.get(file) ?? LoadedSegment.loadDocOffsets(file, { start, end, docs: ref.docs }));
      };
      segments = await followRewrite(this.graph, this.dir, lock, manifest.segments, docsOf, rw, generation);
    } catch (e) {
      if (!(e instanceof DamagedIndexError)) throw e;
      return this.rebuild(lock, e.message, previous);
    }
    const covered = movedOffset(rw.moves, before.covered);
    if ((segments.length ? segments[segments.length - 1]!.end : 0) !== covered || covered > result.size) return this.rebuild(lock, 'the rewrite does not add up', previous);
    const graph = covered === result.size ? result : { ino: result.ino, size: covered, mtimeMs: 0 };
    const next = await this.commit(lock, { format: INDEX_FORMAT, generation, built: manifest.built ?? randomBytes(6).toString('hex'), graph, segments, docs: segments.reduce((n, s) => n + s.docs, 0) });
    if (covered === result.size) return this.emptyTail(next);
    const rest = new IndexTail(`${next.built ?? ''}/${generation}/${covered}`, covered, graph);
    const bytes = readGraphRange(this.graph, covered, result.size);
    if (bytes.length !== result.size - covered) return this.rebuild(lock, 'the graph changed while it was read', generation);
    rest.addBytes(bytes, result);
    lock.assertHeld();
    writeTailRecord(this.tailFile, { built: next.built ?? '', generation, covered, graph: result });
    this.slot.tail = rest;
    return { manifest: next, covered, tail: rest };
  }

  private emptyTail(manifest: IndexManifest): IndexView {
    const covered = manifest.graph.size;
    const tail = new IndexTail(`${manifest.built ?? ''}/${manifest.generation}/${covered}`, covered, manifest.graph);
    this.slot.tail = tail;
    return { manifest, covered, tail };
  }

  /**
   * Under the lock, right after an append to the graph: its lines go into the tail in memory (or, when they are not
   * exactly the bytes appended, the graph's new bytes are read), the tail record says the graph is now exactly this,
   * and the tail is written as segments once it is big (the flush policy). `before` is what ensureFresh returned
   * before the append; `appended`, what the append wrote.
   */
  async afterAppend(lock: HeldLock, before: IndexView, appended: AppendedLines): Promise<IndexView> {
    // The append's own fstat is the graph as it is now (we hold the lock; an outside write after it makes the
    // record stale, which the next reader sees).
    const identity = { ino: appended.ino, size: appended.after, mtimeMs: appended.mtimeMs };
    const { manifest, tail } = before;
    if (identity.ino !== manifest.graph.ino && manifest.graph.ino !== 0) return this.rebuild(lock, 'graph rewritten', manifest.generation);
    // Nothing to add when the index already holds the append (a view taken after it: a rebuild read it).
    if (sameIdentity(tail.identity, identity)) return before;
    if (tail.end > appended.before || (tail.identity.ino !== identity.ino && tail.end > 0)) return this.rebuild(lock, 'the graph changed under the lock', manifest.generation);
    if (!tail.addAppended(appended)) tail.addBytes(readGraphRange(this.graph, tail.end, identity.size), identity);
    lock.assertHeld();
    if (!appended.recorded || !sameIdentity(appended.recorded, identity)) writeTailRecord(this.tailFile, { built: manifest.built ?? '', generation: manifest.generation, covered: before.covered, graph: identity });
    this.slot.tail = tail;
    const policy = this.flushPolicy;
    const pending = tail.pending;
    if (pending) {
      // Ready, or the tail holds a second policy's worth since the cut (the fsyncs were too short): finished here.
      if (pending.job.settled || tail.docsSinceCut >= policy.nodes || tail.bytesSinceCut >= policy.bytes) return this.commitPending(lock, before);
      return before;
    }
    if (tail.docs < policy.nodes && tail.bytes < policy.bytes) return before;
    if (tail.docs < policy.background) return this.flush(lock, before);
    // The segments are encoded beside the next adds' fsyncs (NdjsonGraphWriter.append runs the job there); the
    // tail goes on growing after the cut meanwhile, and searches read it whole.
    const parts = await tail.cut();
    const plan = planFlush(manifest.segments, parts);
    tail.pending = { job: new FlushJob((pause) => encodeFlush(this.dir, plan, pause)), cut: tail.identity };
    return before;
  }

  /**
   * Under the lock, while an append's fsync runs, its bytes written (`written`: the graph's identity they left): the
   * tail record says the graph is now exactly that, as {@link afterAppend} would say once the fsync is done — written
   * here, in the fsync's time (the record is not fsynced either way). A failed fsync cuts the graph back: its size and
   * mtime no longer match the record, which is then stale (rebuilt before the next write), never trusted. Undefined
   * (nothing written) when the append does not extend `view`'s tail.
   */
  recordWhileSyncing(lock: HeldLock, view: IndexView, written: { before: number; after: number; ino: number; mtimeMs: number }): GraphIdentity | undefined {
    const { manifest, tail } = view;
    if (written.before !== tail.end || written.ino !== tail.identity.ino || (manifest.graph.ino !== 0 && manifest.graph.ino !== written.ino)) return undefined;
    lock.assertHeld();
    const graph = { ino: written.ino, size: written.after, mtimeMs: written.mtimeMs };
    writeTailRecord(this.tailFile, { built: manifest.built ?? '', generation: manifest.generation, covered: view.covered, graph });
    return graph;
  }

  /**
   * Under the lock: the flush in the background finished (its job run to its end if it is not yet) and committed —
   * its segments written, the manifest naming them covering the graph to the cut, the tail record saying the graph
   * is now exactly the last append past that. The tail keeps what was added since the cut. A crash between the
   * manifest and the record leaves them disagreeing: stale, rebuilt (never trusted).
   */
  private async commitPending(lock: HeldLock, view: IndexView): Promise<IndexView> {
    const { manifest, tail } = view;
    const { job, cut } = tail.pending!;
    tail.pending = undefined;
    let segments: SegmentRef[];
    try {
      segments = await writeEncoded(this.dir, await job.finish(), manifest.generation, () => lock.assertHeld());
    } catch (e) {
      if (!(e instanceof DamagedIndexError)) throw e;
      return this.rebuild(lock, e.message, manifest.generation);
    }
    const next = await this.commit(lock, { ...manifest, format: INDEX_FORMAT, graph: cut, segments, docs: segments.reduce((n, s) => n + s.docs, 0) });
    const rest = tail.afterCut(`${next.built ?? ''}/${next.generation}/${cut.size}`);
    lock.assertHeld();
    writeTailRecord(this.tailFile, { built: next.built ?? '', generation: next.generation, covered: cut.size, graph: rest.identity });
    this.slot.tail = rest;
    return { manifest: next, covered: cut.size, tail: rest };
  }

  /**
   * Under the lock: writes the tail this process holds as segments (a clean shutdown's last step), when it has any —
   * a flush in the background finished first.
   */
  async flushTail(lock: HeldLock): Promise<void> {
    let view = await this.ensureFresh(lock);
    if (view.tail.pending) view = await this.commitPending(lock, view);
    if (view.tail.bytes > 0) await this.flush(lock, view);
  }

  /**
   * Under the lock: the tail becomes segments after the manifest's, merged with the newest as tail-flush.ts plans (each
   * written segment encoded once, from postings: no node parsed again); the manifest written last names them with the
   * graph's identity now; the tail starts empty again.
   */
  private async flush(lock: HeldLock, view: IndexView): Promise<IndexView> {
    const { manifest, tail } = view;
    tail.pending = undefined;
    const generation = manifest.generation;
    let segments: SegmentRef[];
    try {
      segments = await writeFlush(this.dir, planFlush(manifest.segments, await tail.flushParts()), generation, () => lock.assertHeld());
    } catch (e) {
      if (!(e instanceof DamagedIndexError)) throw e;
      return this.rebuild(lock, e.message, generation);
    }
    const next = await this.commit(lock, { ...manifest, format: INDEX_FORMAT, graph: tail.identity, segments, docs: segments.reduce((n, s) => n + s.docs, 0) });
    return this.emptyTail(next);
  }

  /** Publishes the manifest, then removes every file of the folder it does not name (old segments, a crash's leftovers). */
  private async commit(lock: HeldLock, manifest: IndexManifest): Promise<IndexManifest> {
    lock.assertHeld();
    if (!manifest.segments.length) await makeDir(this.dir);
    await writeManifestFile(this.manifestFile, manifest);
    const keep = new Set([MANIFEST_FILE, TAIL_FILE, ...manifest.segments.map((s) => s.file)]);
    this.forget(keep);
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    await Promise.all(names.filter((n) => !keep.has(n)).map((n) => fs.rm(path.join(this.dir, n), { force: true }).catch(() => undefined)));
    return manifest;
  }

  /** Removes the index (the graph was removed): nothing stays to be trusted. */
  async remove(): Promise<void> {
    this.slot.tail = undefined;
    this.forget(new Set());
    forgetManifest(this.manifestFile);
    await fs.rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

