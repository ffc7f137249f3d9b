import * as fs from 'node:fs/promises';
import { AlreadyExistsError, NotFoundError, StorageError } from '../../../kernel/errors';
import { creationTransitions, type PlanChange, type TaskGraph, type TaskTransition } from '../domain';
import type { CreateOptions, ImportOptions, NewPlanChange, TaskGraphChange, TaskGraphStore, TransitionQuery } from '../application/ports/task-graph-store';
import { historyLines, readHistoryLog } from './history-log';
import { writeFileAtomic } from '../../../kernel/files/atomic-write';
import type { FileLockOptions } from '../../../kernel/files/file-lock';
import { LockedDocument, type DocumentCodec } from '../../../kernel/files/locked-document';
import { ProjectLayout, projectIdFromName } from '../../../kernel/files/project-layout';
import { storageFailure } from './storage-failure';
import { freezeGraph, GraphFileMemo, serializeGraph } from './graph-file-text';
import { logLines, TransitionLog, type TransitionLogContents } from './transition-log';
import type { DataFormatGate } from '../../../kernel/files/data-format';
import { isDamaged, TASK_GRAPH_CODEC, type ReadGraph, type StoredDocument } from './task-graph-file-codec';

/** The graph file of a project, in `<data-dir>/projects/<id>/`. */
export const TASK_GRAPH_FILE = 'task_graph.json';
/** The append-only transition log beside it: one `{from, to, node, time, attempt}` JSON object per line. */
export const TRANSITIONS_FILE = 'transitions.ndjson';
/** The project's history of changes beside it: one {@link PlanChange} per line. */
export const HISTORY_FILE = 'history.ndjson';

/**
 * Task graphs as one JSON file per project, written atomically (temp file, fsync, rename) inside the project's
 * cross-process lock (proper-lockfile on the project folder, shared with the knowledge store), plus the
 * append-only transition log.
 *
 * Why an error means "nothing changed" and a success "all of it is there": the graph file is the commit point, and it
 * records the length of the log that belongs to it (`transition_log_bytes`). A change appends its log lines first
 * (all bytes or none: a failed append is cut back), then renames the new graph into place; when that fails the log is
 * cut back to its old length. A crash between the two leaves log bytes past the recorded length: readers ignore them
 * and the next write cuts them off, so the log never shows a change the graph does not have. Appends start on a fresh
 * line, so a torn line never hides the next one. See docs/tasks.md, "Where files live".
 */
export class FileTaskGraphStore implements TaskGraphStore {
  /** The graph files this store last read or wrote, with what they parsed to (see graph-file-text.ts). */
  private readonly memo = new GraphFileMemo<ReadGraph>();

  constructor(
    private readonly layout: ProjectLayout,
    private readonly lockOptions: FileLockOptions = {},
    /** The data dir's format gate: a newer format is refused, an older one migrated before the first write. */
    private readonly format?: DataFormatGate,
  ) {}

  projectIdOf(nameOrId: string): string {
    return projectIdFromName(nameOrId, 'project');
  }

  /** Absolute path of a project's graph file. */
  graphFile(projectId: string): string {
    return this.layout.projectFile(projectId, TASK_GRAPH_FILE);
  }

  /** Absolute path of a project's transition log. */
  transitionsFile(projectId: string): string {
    return this.layout.projectFile(projectId, TRANSITIONS_FILE);
  }

  async load(projectId: string): Promise<TaskGraph | undefined> {
    return (await this.read(projectId))?.graph;
  }

  async create(graph: TaskGraph, opts: CreateOptions = {}): Promise<number> {
    const projectId = graph.project_id;
    const doc = this.document(projectId);
    await this.format?.assertWritable();
    const created = creationTransitions(graph, opts.actor);
    let revision = 0;
    return doc.swap(
      'create the task graph of project folder',
      (existing) => {
        if (existing) {
          if (!opts.replace) throw new AlreadyExistsError('project', projectId, 'pass replace: true to replace its task graph');
          opts.check?.(existing.graph);
        }
        revision = existing ? existing.graph.revision + 1 : 0;
        return { next: { ...graph, revision }, value: revision };
      },
      {
        // A damaged file must not block the way out that its error message names: replace keeps it aside.
        recover: async (e) => {
          if (!isDamaged(e) || !opts.replace) return false;
          const aside = `${doc.file}.damaged-${new Date().toISOString().replace(/[:.]/g, '-')}`;
          await fs.rename(doc.file, aside).catch((err) => {
            throw storageFailure(err, doc.file, 'move the damaged graph file aside:', 'nothing was changed');
          });
          return true;
        },
        commit: (next, existing, write) =>
          this.commit(projectId, next, existing, logLines(created), historyLines(opts.history ? [opts.history] : [], revision), write),
      },
    );
  }

  async update<T>(projectId: string, change: (current: TaskGraph) => TaskGraphChange<T>): Promise<T> {
    await this.format?.assertWritable();
    let lines = '';
    let history = '';
    return this.document(projectId).swap(
      'update the task graph of project folder',
      (current) => {
        if (!current) throw new NotFoundError('project', projectId, `project '${projectId}' has no task graph; call init_project_graph first`);
        const result = change(current.graph);
        if (!result.graph) return { value: result.value };
        const revision = current.graph.revision + 1;
        lines = logLines(result.transitions ?? [], current.archived);
        history = historyLines(result.history ?? [], revision);
        return { next: { ...result.graph, revision }, value: result.value };
      },
      { commit: (next, current, write) => this.commit(projectId, next, current, lines, history, write) },
    );
  }

  /**
   * Rewrites a project's graph file in today's format when it is older (archived attempt records appended to the log
   * first), under the lock. Returns whether it did. A damaged file is left as it is (its error names it on use).
   */
  async upgrade(projectId: string): Promise<boolean> {
    let lines = '';
    return this.document(projectId).swap(
      'upgrade the task graph of project folder',
      (current) => {
        if (!current?.upgradedFrom) return { value: false };
        lines = logLines([], current.archived);
        return { next: { ...current.graph, revision: current.graph.revision + 1 }, value: true };
      },
      { recover: async (e) => isDamaged(e), commit: (next, current, write) => this.commit(projectId, next, current, lines, '', write) },
    );
  }

  /** Absolute path of a project's history of changes. */
  historyFile(projectId: string): string {
    return this.layout.projectFile(projectId, HISTORY_FILE);
  }

  async readHistory(projectId: string, opts: { nodes?: readonly string[]; limit?: number } = {}): Promise<PlanChange[]> {
    const stored = await this.read(projectId).catch(() => undefined);
    if (!stored) return [];
    const file = this.historyFile(projectId);
    try {
      return await readHistoryLog(file, stored.historyBytes ?? 0, opts);
    } catch (e) {
      throw storageFailure(e, file, 'read the history of changes', 'nothing was changed');
    }
  }

  async readTransitions(projectId: string, opts: TransitionQuery = {}): Promise<TaskTransition[]> {
    const all = (await this.readTransitionLog(projectId)).transitions;
    if (!opts.nodes) return all;
    const wanted = new Set(opts.nodes);
    return all.filter((t) => wanted.has(t.node));
  }

  /**
   * The whole transition log: status changes, attempt records moved there by an upgrade, and torn lines (skipped,
   * reported with their line number). Bytes past the length the graph file records belong to a write that never
   * took effect and are not read.
   */
  async readTransitionLog(projectId: string): Promise<TransitionLogContents> {
    const log = new TransitionLog(this.transitionsFile(projectId));
    const stored = await this.read(projectId).catch(() => undefined);
    try {
      return await log.read(stored?.logBytes);
    } catch (e) {
      throw storageFailure(e, log.file, 'read the transition log', 'nothing was changed');
    }
  }

  /**
   * Appends the log lines and the history entries, then writes the graph recording both logs' new lengths (the commit
   * point); undoes both appends when the graph write fails. Bytes past a recorded length (a crash between an append
   * and the graph write) are cut off first: they belong to a write that never took effect.
   */
  private async commit(
    projectId: string,
    graph: TaskGraph,
    current: ReadGraph | undefined,
    lines: string,
    history: string,
    write: (doc: StoredDocument) => Promise<void>,
  ): Promise<void> {
    const log = new TransitionLog(this.transitionsFile(projectId));
    const changes = new TransitionLog(this.historyFile(projectId));
    let appended: { before: number; after: number };
    let recorded: { before: number; after: number };
    try {
      appended = await appendAt(log, current?.logBytes, lines);
    } catch (e) {
      throw storageFailure(e, log.file, 'append to the transition log', 'nothing was changed (the task graph is as it was)');
    }
    try {
      // A graph file written before the history existed records no length: the history then starts empty.
      recorded = await appendAt(changes, current ? (current.historyBytes ?? 0) : 0, history);
    } catch (e) {
      await log.cutBack(appended.before).catch(() => undefined);
      throw storageFailure(e, changes.file, 'append to the history of changes', 'nothing was changed (the task graph is as it was)');
    }
    try {
      await write({ ...graph, transition_log_bytes: appended.after, history_log_bytes: recorded.after });
    } catch (e) {
      await log.cutBack(appended.before).catch(() => undefined);
      await changes.cutBack(recorded.before).catch(() => undefined);
      throw e;
    }
  }

  /** Reads and checks a graph file, upgrading an older format in memory. @throws StorageError naming the file. */
  private read(projectId: string): Promise<ReadGraph | undefined> {
    return this.document(projectId).read();
  }

  /** A project's graph file as a locked document: the project folder's lock (shared with the knowledge store) guards it. */
  private document(projectId: string): LockedDocument<ReadGraph, StoredDocument> {
    const file = this.graphFile(projectId);
    return new LockedDocument(file, this.layout.projectDir(projectId), this.codecFor(file), {
      name: 'the task graph file',
      lock: this.lockOptions,
      failure: storageFailure,
      beforeRead: async () => this.format?.assertReadable(),
    });
  }

  /**
   * The graph file's codec: text this store last saw for the file is not parsed again, and what it writes is
   * remembered as what it will read back. Graphs handed out are frozen: the memo shares them between calls.
   */
  private codecFor(file: string): DocumentCodec<ReadGraph, StoredDocument> {
    return {
      parse: (text, f) =>
        this.memo.parse(f, text, (t) => {
          const reading = TASK_GRAPH_CODEC.parse(t, f);
          freezeGraph(reading.graph);
          return reading;
        }),
      serialize: (doc) => {
        const text = serializeGraph(doc);
        const { transition_log_bytes: logBytes, history_log_bytes: historyBytes, ...graph } = doc;
        this.memo.remember(file, text, { graph: freezeGraph({ ...graph, nodes: [...graph.nodes] }), logBytes, historyBytes, archived: [] });
        return text;
      },
    };
  }

  /** Every project id with a task graph file (for listings, export and the dashboard). */
  async listProjects(): Promise<string[]> {
    let entries: string[];
    try {
      entries = await fs.readdir(this.layout.projectsDir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new StorageError(`cannot list ${this.layout.projectsDir}: ${(e as Error).message}`, { file: this.layout.projectsDir });
    }
    const out: string[] = [];
    for (const id of entries.sort()) {
      if (!/^[a-z0-9][a-z0-9-]*$/.test(id)) continue;
      if (await fs.stat(this.graphFile(id)).then(() => true, () => false)) out.push(id);
    }
    return out;
  }

  async importProject(graph: TaskGraph, transitions: readonly TaskTransition[], opts: ImportOptions = {}): Promise<'imported' | 'unchanged' | 'skipped'> {
    const log = logLines(transitions);
    const history = (opts.history ?? []).map((h) => JSON.stringify(h) + '\n').join('');
    return this.document(graph.project_id).swap(
      'import the task graph of project folder',
      (existing) => {
        if (existing && existing.graph.revision === graph.revision && existing.graph.updated_at === graph.updated_at) return { value: 'unchanged' as const };
        if (existing && !opts.replace) return { value: 'skipped' as const };
        return { next: { ...graph, transition_log_bytes: Buffer.byteLength(log), history_log_bytes: Buffer.byteLength(history) }, value: 'imported' as const };
      },
      {
        // An unreadable graph is replaced by the imported one.
        recover: async () => true,
        // The log first, then the graph recording the log's length (the commit point, as in every write).
        commit: async (next, _existing, write) => {
          await writeFileAtomic(this.transitionsFile(graph.project_id), log);
          await writeFileAtomic(this.historyFile(graph.project_id), history);
          await write(next);
        },
      },
    );
  }
}

/** Cuts `log` back to `length` when longer (a write that never took effect), then appends `text` (none: no I/O). */
async function appendAt(log: TransitionLog, length: number | undefined, text: string): Promise<{ before: number; after: number }> {
  let size = await log.size();
  if (length !== undefined && size > length) {
    await log.cutBack(length);
    size = length;
  }
  return text ? log.append(text) : { before: size, after: size };
}
