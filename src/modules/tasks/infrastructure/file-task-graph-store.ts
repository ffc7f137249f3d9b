import * as fs from 'node:fs/promises';
import { AlreadyExistsError, NotFoundError, StorageError } from '../../../kernel/errors';
import type { TaskGraph, TaskTransition } from '../domain/task-graph';
import type { TaskGraphChange, TaskGraphStore } from '../application/ports/task-graph-store';
import { appendDurable, writeFileAtomic } from '../../../kernel/files/atomic-write';
import { withFileLock, type FileLockOptions } from '../../../kernel/files/file-lock';
import { ProjectLayout, projectIdFromName } from '../../../kernel/files/project-layout';
import type { DataFormatGate } from '../../../kernel/files/data-format';

/** The graph file of a project, in `<data-dir>/projects/<id>/`. */
export const TASK_GRAPH_FILE = 'task_graph.json';
/** The append-only transition log beside it: one `{from, to, node, time, attempt}` JSON object per line. */
export const TRANSITIONS_FILE = 'transitions.ndjson';

/**
 * Task graphs as one JSON file per project, written atomically (temp file, fsync, rename) inside the project's
 * cross-process lock (proper-lockfile on the project folder, shared with the knowledge store), plus the
 * append-only transition log.
 */
export class FileTaskGraphStore implements TaskGraphStore {
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
    await this.format?.assertReadable();
    const file = this.graphFile(projectId);
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw new StorageError(`cannot read ${file}: ${(e as Error).message}`, { file }, { cause: e });
    }
    try {
      const graph = JSON.parse(text) as TaskGraph;
      if (!graph || !Array.isArray(graph.nodes)) throw new Error('no nodes array');
      return graph;
    } catch (e) {
      throw new StorageError(`task graph file ${file} is not a valid task graph: ${(e as Error).message}`, { file });
    }
  }

  async create(graph: TaskGraph, opts: { replace?: boolean; check?: (existing: TaskGraph) => void } = {}): Promise<void> {
    const dir = this.layout.projectDir(graph.project_id);
    await this.format?.assertWritable();
    await withFileLock(
      dir,
      async (lock) => {
        const existing = await this.load(graph.project_id);
        if (existing) {
          if (!opts.replace) {
            throw new AlreadyExistsError('project', graph.project_id, 'pass replace: true to replace its task graph');
          }
          opts.check?.(existing);
        }
        lock.assertHeld();
        const revision = existing ? existing.revision + 1 : 0;
        await writeFileAtomic(this.graphFile(graph.project_id), JSON.stringify({ ...graph, revision }, null, 2) + '\n');
        await this.appendTransitions(
          graph.project_id,
          graph.nodes.map((n) => ({ node: n.id, from: n.status, to: n.status, time: graph.created_at, attempt: 0 })),
        );
      },
      this.lockOptions,
    );
  }

  async update<T>(projectId: string, change: (current: TaskGraph) => TaskGraphChange<T>): Promise<T> {
    await this.format?.assertWritable();
    return withFileLock(
      this.layout.projectDir(projectId),
      async (lock) => {
        const current = await this.load(projectId);
        if (!current) throw new NotFoundError('project', projectId, `project '${projectId}' has no task graph; call init_project_graph first`);
        const result = change(current);
        if (result.graph) {
          lock.assertHeld();
          const next: TaskGraph = { ...result.graph, revision: current.revision + 1 };
          await writeFileAtomic(this.graphFile(projectId), JSON.stringify(next, null, 2) + '\n');
          if (result.transitions?.length) await this.appendTransitions(projectId, result.transitions);
        }
        return result.value;
      },
      this.lockOptions,
    );
  }

  async readTransitions(projectId: string): Promise<TaskTransition[]> {
    let text: string;
    try {
      text = await fs.readFile(this.transitionsFile(projectId), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const out: TaskTransition[] = [];
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        out.push(JSON.parse(line) as TaskTransition);
      } catch {
        // A torn last line (crash mid-append) is skipped: the graph file, not the log, is the source of truth.
      }
    }
    return out;
  }

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

  async importProject(graph: TaskGraph, transitions: readonly TaskTransition[], opts: { replace?: boolean } = {}): Promise<'imported' | 'unchanged' | 'skipped'> {
    return withFileLock(
      this.layout.projectDir(graph.project_id),
      async (lock) => {
        const existing = await this.load(graph.project_id).catch(() => undefined);
        if (existing && existing.revision === graph.revision && existing.updated_at === graph.updated_at) return 'unchanged';
        if (existing && !opts.replace) return 'skipped';
        lock.assertHeld();
        const log = transitions.map((t) => JSON.stringify({ from: t.from, to: t.to, node: t.node, time: t.time, attempt: t.attempt }) + '\n').join('');
        await writeFileAtomic(this.transitionsFile(graph.project_id), log);
        await writeFileAtomic(this.graphFile(graph.project_id), JSON.stringify(graph, null, 2) + '\n');
        return 'imported';
      },
      this.lockOptions,
    );
  }

  /** Appends log lines with one write (callers hold the lock). Field order: from, to, node, time, attempt. */
  private async appendTransitions(projectId: string, transitions: readonly TaskTransition[]): Promise<void> {
    const text = transitions
      .map((t) => JSON.stringify({ from: t.from, to: t.to, node: t.node, time: t.time, attempt: t.attempt }))
      .join('\n');
    await appendDurable(this.transitionsFile(projectId), text + '\n');
  }
}
