import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ChangeEvent, ChangeEvents } from '../kernel/change-events';
import { makeDirSync } from '../kernel/files/make-dir';

/** Changes to one (kind, project, id) within this window are published as one event. */
const COALESCE_MS = 40;

type PathChange = Omit<ChangeEvent, 'at'>;

/**
 * `<start-ms>-<run-id>.json`, `….summary.json`, or their temp files (`.<name>.tmp-…`) → the run id. The temp file's
 * name counts: once a record has been replaced by rename, the OS may tell of the temp file only (a live run's record
 * is rewritten many times).
 */
function runIdOf(file: string): string | undefined {
  const m = /^\.?\d+-([A-Za-z0-9_-]+?)(?:\.summary)?\.json(?:\.tmp.*)?$/.exec(file);
  return m?.[1];
}

/**
 * Which store a changed path of the data dir belongs to (relative path, `/`-separated), as the change event that
 * store publishes, or undefined for files no page shows (locks, temp files of other tools).
 */
export function classifyDataDirPath(rel: string): PathChange | undefined {
  const parts = rel.split(/[\\/]/).filter(Boolean);
  if (parts.some((p) => p.endsWith('.lock'))) return undefined;
  if (parts[0] === 'projects' && parts.length >= 3) {
    const project = parts[1];
    // The checked write path renames `.<name>.tmp-…` into place: the temp file's name counts as the file's.
    const name = parts[2].replace(/^\./, '');
    // The history of changes too: an edit (update_task, a claim renewal) writes no transition.
    if (name.startsWith('task_graph') || name.startsWith('transitions') || name.startsWith('history')) return { kind: 'tasks', project, id: project };
    if (name.startsWith('knowledge_graph') || name === 'backup') return { kind: 'knowledge', project, id: project };
    return undefined;
  }
  if (parts[0] === 'graph-runs' && parts.length >= 2) {
    // The tool name goes in `project` (as the run store publishes it); a folder-level change names the tool only.
    const runId = parts[2] ? runIdOf(parts[2]) : undefined;
    if (parts[2] && !runId) return undefined;
    return { kind: 'graph-run', project: parts[1], id: runId ?? parts[1] };
  }
  if (parts[0] === 'sessions' && parts[1]) {
    return { kind: 'session', id: parts[1].replace(/\.(json|ndjson)(\.tmp.*)?$/, '') };
  }
  return undefined;
}

/** Top-level folders of the data dir whose files some page shows (classifyDataDirPath); no other is watched. */
const SHOWN_TOP = new Set(['projects', 'graph-runs', 'sessions']);

/** Whether the folder at `rel` (relative to the data dir, `/`-separated; '' = the data dir) is watched. */
export function watchesFolder(rel: string): boolean {
  if (rel === '') return true;
  const parts = rel.split('/');
  // A lock is a folder made and removed on every write (proper-lockfile): nothing in it is shown.
  return SHOWN_TOP.has(parts[0]) && !parts.some((p) => p.endsWith('.lock'));
}

interface WatchedFolder {
  watcher: fs.FSWatcher;
  ino: number;
}

/**
 * File mode's feed of the kernel's change-event port: the OS's notifications about the data dir, which every server
 * process writes, become the same events the stores publish in-process — so changes made by any process reach the
 * dashboard (and MCP resource subscriptions). Nothing is re-read on a timer, and an event names the project (or run,
 * or session) so a page re-reads only that.
 *
 * One fs.watch per folder (the data dir, `projects/`, each project's folder, …), each event taken by the name the
 * folder's watch reports. Why not `fs.watch(dataDir, { recursive: true })`: on Linux, Node 20 emulates it with a watch
 * on every file and folder and, on a folder's event, a read of the folder for names it has not seen — so a file
 * replaced by rename (every store's atomic write) is heard only while its temp file exists. A process whose loop was
 * busy for those few milliseconds (a loaded machine) heard nothing of the write at all: a live run's final record was
 * missed and its page said "running" for ever. A folder's own watch queues each name in the kernel until it is read.
 */
export class DataDirWatcher {
  private readonly pending = new Map<string, PathChange>();
  private readonly folders = new Map<string, WatchedFolder>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly dataDir: string,
    private readonly events: ChangeEvents,
    private readonly onError: (err: Error) => void = () => undefined,
  ) {}

  /** Starts watching (creating the data dir when missing, so a store created later is seen too). */
  start(): this {
    makeDirSync(this.dataDir);
    this.watchFolder('', false);
    return this;
  }

  /** Folders watched now (one fs.watch each), for tests. */
  get folderCount(): number {
    return this.folders.size;
  }

  close(): void {
    this.closed = true;
    for (const f of this.folders.values()) f.watcher.close();
    this.folders.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }

  /**
   * Watches the folder at `rel` and the folders in it. `announce`: a folder that appeared after the start — what it
   * already holds was written before its watch began, so each file in it is told of as changed.
   */
  private watchFolder(rel: string, announce: boolean): void {
    if (this.closed || this.folders.has(rel) || !watchesFolder(rel)) return;
    const abs = this.abs(rel);
    let entries: fs.Dirent[];
    try {
      const ino = fs.statSync(abs).ino;
      const watcher = fs.watch(abs, { persistent: false }, (type, name) => this.heard(rel, type, name === null ? undefined : String(name)));
      watcher.on('error', (err) => {
        this.unwatch(rel);
        if (!isGone(err)) this.onError(err);
      });
      this.folders.set(rel, { watcher, ino });
      // Listed after its watch began: an entry made meanwhile is in the listing, or its event is queued, or both.
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch (e) {
      this.unwatch(rel);
      // Removed (or replaced by a file) before its watch began: its parent's event told of that.
      if (!isGone(e)) this.onError(e as Error);
      return;
    }
    for (const e of entries) {
      const child = join(rel, e.name);
      if (e.isDirectory()) this.watchFolder(child, announce);
      else if (announce) this.changed(child);
    }
  }

  /** An event of the folder at `rel` about its entry `name` (a 'rename': made, moved or removed — maybe a folder). */
  private heard(rel: string, type: string, name: string | undefined): void {
    if (this.closed) return;
    if (name === undefined) {
      // The OS did not say which entry (its queue overflowed): everything in the folder may have changed.
      this.rescan(rel);
      return;
    }
    const child = join(rel, name);
    this.changed(child);
    if (type !== 'rename' || !watchesFolder(child)) return;
    const st = statOrUndefined(this.abs(child));
    const watched = this.folders.get(child);
    // A folder removed or replaced under the same name: its watch followed the old one.
    if (watched && watched.ino !== st?.ino) this.unwatch(child);
    if (st?.isDirectory()) this.watchFolder(child, true);
  }

  private rescan(rel: string): void {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(this.abs(rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const child = join(rel, e.name);
      if (e.isDirectory()) this.watchFolder(child, true);
      else this.changed(child);
    }
  }

  /** Stops watching the folder at `rel` and every folder under it. */
  private unwatch(rel: string): void {
    for (const [key, f] of this.folders) {
      if (key === rel || key.startsWith(`${rel}/`)) {
        f.watcher.close();
        this.folders.delete(key);
      }
    }
  }

  private changed(rel: string): void {
    const ev = classifyDataDirPath(rel);
    if (ev) this.queue(ev);
  }

  private abs(rel: string): string {
    return rel ? path.join(this.dataDir, ...rel.split('/')) : this.dataDir;
  }

  private queue(ev: PathChange): void {
    this.pending.set(`${ev.kind}\0${ev.project ?? ''}\0${ev.id}`, ev);
    this.timer ??= setTimeout(() => this.flush(), COALESCE_MS);
  }

  private flush(): void {
    this.timer = undefined;
    const at = new Date().toISOString();
    const events = [...this.pending.values()];
    this.pending.clear();
    for (const ev of events) this.events.publish({ ...ev, at });
  }
}

function join(rel: string, name: string): string {
  return rel ? `${rel}/${name}` : name;
}

function statOrUndefined(p: string): fs.Stats | undefined {
  try {
    return fs.statSync(p);
  } catch {
    return undefined;
  }
}

function isGone(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
