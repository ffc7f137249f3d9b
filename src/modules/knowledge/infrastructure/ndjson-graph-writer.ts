import * as fs from 'node:fs/promises';
import * as fsSync from 'node:fs';
import * as path from 'node:path';
import type { Clock } from '../../../kernel/clock';
import type { DeleteReport, KnowledgeWriter } from '../application/ports/knowledge-store';
import { summarizesAny } from '../domain/summaries';
import type { DeletedNodeRecord, StoredKnowledgeNode } from '../domain/knowledge-node';
import { writeFileAtomic } from '../../../kernel/files/atomic-write';
import type { HeldLock } from '../../../kernel/files/file-lock';
import { appendFully, type AppendOptions, type AppendResult } from '../../../kernel/files/write-fully';
import { errnoCode, toStorageError } from '../../../kernel/files/storage-errors';
import { createBackup, pruneBackups } from './backup-files';
import type { KnowledgePaths } from './knowledge-files';
import { NdjsonGraphReader } from './ndjson-graph-reader';
import { parseNode, parseRecord, type PassReport, type RebuildReport, type RebuildTransform } from './ndjson-passes';
import { KEEP, MALFORMED, rewriteNdjsonFile } from './ndjson-file-rewrite';
import type { Logger } from '../../../kernel/logger';
import type { GraphIdentity, IndexView, SearchIndexFiles, StagedAppend } from './search-index/search-index';
import { newRewriteTrack } from './search-index/rewrite-map';
import { restoreSummaries } from '../application/services/restore-into-graph';

export interface WriterSettings {
  clock: Clock;
  backupMaxAgeDays: number;
  backupMaxCount: number;
  logger?: Logger;
}

/** The marker of a delete or restore in progress (both files change): `<project>/knowledge_graph.pending.json`. */
export const PENDING_FILE = 'knowledge_graph.pending.json';

/**
 * The writes of one project's NDJSON files, made while holding its lock: adds append lines (one fsynced write);
 * deletes, restores and summary updates stream the file through a rebuild (temp file, fsync, rename). A change of
 * both files (graph and deletion records) is bracketed by a pending marker so an interruption is settled by the next
 * write under the lock: no node is ever both in the graph and deleted.
 */
export class NdjsonGraphWriter extends NdjsonGraphReader implements KnowledgeWriter {
  private view: IndexView | undefined;
  /** A restore of this locked call has left its marker (endRestore drops it). */
  private restoring = false;

  constructor(
    paths: KnowledgePaths,
    private readonly lock: HeldLock,
    private readonly settings: WriterSettings,
    searchIndex: SearchIndexFiles,
  ) {
    super(paths, searchIndex, async () => {
      this.view = await searchIndex.ensureFresh(lock);
    });
  }

  /**
   * Under the lock, before any write: the search index is made the graph's (rebuilt when stale), so writes extend it.
   * Its segments are not loaded for that (a write checks what it reads of them): a delete in a process of its own
   * holds only its streaming rewrite and one segment's doc offsets at a time. `load`: they are (a search's repair).
   */
  async openIndex(load = false): Promise<void> {
    this.view = await this.index!.ensureFresh(this.lock, load);
  }

  async append(nodes: readonly StoredKnowledgeNode[]): Promise<void> {
    if (nodes.length === 0) return;
    const lines = nodes.map((n) => JSON.stringify(n));
    // The index's CPU work on the new nodes is done while the graph's fsync runs; they join the tail once it is done.
    // So is a slice of a flush in the background, if one is under way, for as long as the fsync lasts.
    // And the tail record's rewrite (recordWhileSyncing).
    let staged: StagedAppend | undefined;
    let recorded: GraphIdentity | undefined;
    const written = await this.appendLines(this.paths.graph, lines, (w, synced) => {
      let meanwhile: Promise<void> | undefined;
      try {
        const view = this.view;
        staged = view?.tail.stage({ ...w, lines, nodes });
        if (view) recorded = this.index!.recordWhileSyncing(this.lock, view, w);
        meanwhile = view?.tail.pending?.job.runWhile(synced);
      } catch {
        staged = undefined;
        recorded = undefined;
      }
      return meanwhile;
    });
    await this.updateIndex((index, before) => index.afterAppend(this.lock, before, { ...written, lines, nodes, staged, recorded }));
  }

  /**
   * The search index follows the graph under the same lock, right after it. The graph write has committed by then:
   * if the index write fails (full disk), the write still stands and the index is left stale, which the next search
   * or write detects and rebuilds.
   */
  private async updateIndex(step: (index: SearchIndexFiles, before: IndexView) => Promise<IndexView>): Promise<void> {
    const index = this.index!;
    try {
      this.view = await step(index, this.view ?? (await index.ensureFresh(this.lock)));
    } catch (e) {
      this.view = undefined;
      this.settings.logger?.warn('knowledge search index not updated; the next search rebuilds it', { graph: this.paths.graph, error: (e as Error).message });
    }
  }

  /**
   * Order: marker, backup, records, rebuild, marker removed. Interrupted anywhere before the rebuild's rename, the
   * nodes are still in the graph and the next write drops their records (the delete did not happen); after it, the
   * delete is complete. Not cancellable: once the graph starts changing it runs until it is consistent again.
   */
  async deleteWithBackup(records: readonly DeletedNodeRecord[]): Promise<DeleteReport> {
    const ids = records.map((r) => r.nodeId);
    await this.beginTwoFileChange('delete', ids);
    const backup = await this.backup();
    await this.appendDeleted(records);
    const deleted = new Set(ids);
    const summaries: StoredKnowledgeNode[] = [];
    let report: PassReport;
    try {
      report = await this.rebuild((node) => {
        if (deleted.has(node.id)) return null;
        const changed = node.parents.some((p) => deleted.has(p)) ? { ...node, parents: node.parents.filter((p) => !deleted.has(p)) } : undefined;
        if (summarizesAny(node, deleted)) summaries.push(changed ?? node);
        return changed;
      });
    } catch (e) {
      // The graph is unchanged (the rebuild commits by rename or not at all): take the records back. If even that
      // fails, the marker stays and the next write under the lock does it.
      await this.removeDeleted(deleted)
        .then(() => this.endTwoFileChange())
        .catch(() => undefined);
      throw e;
    }
    await this.endTwoFileChange();
    return { backupPath: backup.path, pruned: backup.pruned.length, summaries, malformedCount: report.malformedCount, malformed: report.malformed };
  }

  /**
   * Marker, graph append, records removed — and the marker stays until the locked call that restored ends
   * ({@link endRestore}, after restoreIntoGraph gave the summaries waiting for these nodes their old text back).
   * Interrupted anywhere before, the next write removes the leftover records and brings the summaries back.
   */
  async restore(nodes: readonly StoredKnowledgeNode[]): Promise<void> {
    const ids = nodes.map((n) => n.id);
    await this.beginTwoFileChange('restore', ids);
    this.restoring = true;
    await this.append(nodes);
    await this.removeDeleted(new Set(ids));
  }

  /** The locked call ended without an error: a restore of it is complete (summaries included), its marker dropped. */
  async endRestore(): Promise<void> {
    if (!this.restoring) return;
    this.restoring = false;
    await this.endTwoFileChange();
  }

  async updateNodes(ids: ReadonlySet<string>, change: (node: StoredKnowledgeNode) => StoredKnowledgeNode | undefined): Promise<string[]> {
    const changed: string[] = [];
    if (ids.size === 0) return changed;
    await this.rebuild((node) => {
      if (!ids.has(node.id)) return undefined;
      const next = change(node);
      if (next) changed.push(node.id);
      return next;
    });
    return changed;
  }

  /**
   * Copies the graph to `backup/knowledge_graph_YYYYMMDD-HHMMSS.ndjson` (UTC; `-1`, `-2`, ... when that name is
   * taken), then prunes backups older than the configured age or beyond the configured count.
   */
  async backup(): Promise<{ path: string; pruned: string[] }> {
    this.lock.assertHeld();
    const now = this.settings.clock.now();
    const file = await createBackup(this.paths.graph, this.paths.backupDir, now);
    const pruned = await pruneBackups(this.paths.backupDir, {
      nowMs: now,
      maxAgeDays: this.settings.backupMaxAgeDays,
      maxCount: this.settings.backupMaxCount,
      keep: file,
    });
    return { path: file, pruned };
  }

  /** Appends deletion records to the deleted file (one write, fsynced). */
  async appendDeleted(records: readonly DeletedNodeRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.appendLines(this.paths.deleted, records.map((r) => JSON.stringify(r)));
  }

  /**
   * Streams the graph line by line through `transform` into a temp file in the same folder, fsyncs it and renames it
   * over the graph (then fsyncs the folder): a crash at any moment leaves the old file or the new one. Malformed
   * lines are kept as they are and reported.
   */
  async rebuild(transform: RebuildTransform, signal?: AbortSignal): Promise<RebuildReport> {
    let dropped = 0;
    let rewritten = 0;
    const track = newRewriteTrack();
    const result = await rewriteNdjsonFile(
      this.lock,
      this.paths.graph,
      (text) => {
        const node = parseNode(text);
        if (!node) return MALFORMED;
        const out = transform(node);
        if (out === undefined) return KEEP;
        if (out === null) {
          dropped++;
          return null;
        }
        rewritten++;
        return JSON.stringify(out);
      },
      () => dropped + rewritten > 0,
      signal,
      track,
    );
    // The index follows what the rewrite did (lines dropped, rewritten, moved) instead of being built again.
    if (result.committed) await this.updateIndex((index, before) => index.afterRewrite(this.lock, before, track));
    return { ...result, dropped, rewritten };
  }

  /** Rewrites the deleted file without the records of these node ids (same atomic streaming rewrite). */
  async removeDeleted(nodeIds: ReadonlySet<string>): Promise<{ removed: number }> {
    let removed = 0;
    await rewriteNdjsonFile(
      this.lock,
      this.paths.deleted,
      (text) => {
        const record = parseRecord(text);
        if (!record) return MALFORMED;
        if (nodeIds.has(record.nodeId)) {
          removed++;
          return null;
        }
        return KEEP;
      },
      () => removed > 0,
    );
    return { removed };
  }

  /**
   * One all-or-nothing append per call (see appendFully: every byte written or the file cut back to its old length),
   * then fsync. Lines of concurrent writers never interleave: we hold the lock. A torn last line (a crash mid-write)
   * stays a malformed line of its own instead of swallowing ours.
   */
  private async appendLines(file: string, lines: string[], whileSyncing?: AppendOptions['whileSyncing']): Promise<AppendResult> {
    this.lock.assertHeld();
    return appendFully(file, lines.join('\n') + '\n', { ensureNewline: true, whileSyncing });
  }

  private get pendingFile(): string {
    return path.join(this.paths.dir, PENDING_FILE);
  }

  /**
   * Records (durably) that a change of both files — graph and deleted records — is starting for these ids. Until
   * {@link endTwoFileChange}, an interruption (exit, lost lock, full disk) is settled under the lock before the next
   * write: a node still in the graph loses its deletion record (a delete that never completed is undone; a restore
   * that appended the node is completed).
   */
  async beginTwoFileChange(op: 'delete' | 'restore', nodeIds: readonly string[]): Promise<void> {
    this.lock.assertHeld();
    await writeFileAtomic(this.pendingFile, JSON.stringify({ op, nodeIds, pid: process.pid, startedAt: new Date(this.settings.clock.now()).toISOString() }) + '\n');
  }

  /** The two-file change finished (or was fully undone): drops the marker. */
  async endTwoFileChange(): Promise<void> {
    await fs.rm(this.pendingFile, { force: true }).catch((e) => {
      throw toStorageError(e, 'remove', this.pendingFile);
    });
  }

  /**
   * Settles a delete or restore that was interrupted between its two files: a node that is in the graph has no
   * deletion record (the delete never completed, or the restore did). Runs under the lock, only when the marker is
   * there, so it costs nothing otherwise. Without a readable marker every deletion record is checked.
   * @returns the ids whose leftover records were removed.
   */
  async repairInterrupted(): Promise<string[]> {
    let text: string;
    try {
      // Synchronous, and a stat first: on every write, and nearly always missing (through the thread pool it cost
      // 0.5 ms an add on the loaded machine, a sixth of a bare append; a thrown ENOENT costs its stack trace).
      if (!fsSync.statSync(this.pendingFile, { throwIfNoEntry: false })) return [];
      text = fsSync.readFileSync(this.pendingFile, 'utf8');
    } catch (e) {
      if (errnoCode(e) === 'ENOENT') return [];
      throw toStorageError(e, 'read', this.pendingFile);
    }
    let ids: Set<string> | undefined;
    let op: unknown;
    try {
      const marker = JSON.parse(text) as { op?: unknown; nodeIds?: unknown };
      op = marker.op;
      if (Array.isArray(marker.nodeIds)) ids = new Set(marker.nodeIds.filter((x): x is string => typeof x === 'string'));
    } catch {
      ids = undefined;
    }
    if (!ids) {
      ids = new Set();
      const all = ids;
      await this.scanDeleted((r) => all.add(r.nodeId));
    }
    const present = await this.findByIds(ids);
    const orphans = new Set<string>();
    if (present.size) await this.scanDeleted((r) => present.has(r.nodeId) && orphans.add(r.nodeId));
    if (orphans.size) await this.removeDeleted(orphans);
    // A restore (or a marker that cannot say what it was) stopped before its summaries got their old text back:
    // those waiting for nodes now all in the graph get it here.
    if (op !== 'delete' && present.size) await restoreSummaries(this, new Set(present.keys()));
    await this.endTwoFileChange();
    return [...orphans];
  }
}
