import * as fs from 'node:fs';
import * as path from 'node:path';
import { InProcessChangeEvents, type ChangeEvent, type ChangeEvents, type ChangeListener, type ChangeTarget } from '../change-events';

/** Where a target lives in a file data dir: the folder to watch and the file whose version tells that it changed. */
export interface ChangeFile {
  dir: string;
  file: string;
}

/** File notifications for one target within this window are checked once (a session change writes several files). */
const SETTLE_MS = 40;

interface Watched {
  refs: number;
  target: ChangeTarget;
  file: string;
  dir: string;
  /** The version (inode, size, mtime) of the file last delivered to listeners. */
  delivered: string;
  /** The folder watched for it (the target's, or its nearest existing ancestor until it exists) and its entry there. */
  folder?: Folder;
  /** The name in that folder whose change concerns this target: its file, or the next folder down towards it. */
  entry?: string;
  timer?: NodeJS.Timeout;
}

/** One fs.watch per folder, whatever the number of targets under it: the targets by the entry name they wait on. */
interface Folder {
  key: string;
  dir: string;
  ino: number;
  watcher?: fs.FSWatcher;
  byEntry: Map<string, Set<Watched>>;
  size: number;
}

/**
 * The change-event port of a file data dir shared by several server processes: this process's stores publish as
 * usual, and for each watched target (a resource some client subscribed to) the folder holding it is watched
 * (fs.watch, no polling) so that a change another process makes is published here too. A change reaches listeners
 * once: each delivery records the version of the target's file, and an event whose file is at the version already
 * delivered — this process's own write heard again through the file system, or the store's event after the watcher
 * saw its write first — is dropped. Targets nobody watches pass through untouched.
 *
 * The cost of a file event does not grow with the number of watched targets: each folder has one watcher, shared by
 * every target under it, and an event wakes only the targets waiting on the name it carries (20,000 subscriptions to
 * sessions that do not exist are 20,000 entries of one watcher on `sessions/`, not 20,000 watchers woken by every
 * write there).
 */
export class FileWatchingChangeEvents implements ChangeEvents {
  private readonly inner = new InProcessChangeEvents();
  /** By the path of the target's file. */
  private readonly watched = new Map<string, Watched>();
  /** By folder path and inode. */
  private readonly folders = new Map<string, Folder>();

  constructor(
    private readonly locate: (target: ChangeTarget) => ChangeFile | undefined,
    private readonly onError: (err: Error) => void = () => undefined,
  ) {}

  publish(event: ChangeEvent): void {
    // Nothing watched (no lookup of where the target lives): the event passes through.
    const w = this.watched.size > 0 ? this.find(event) : undefined;
    if (w && !this.advance(w)) return;
    this.inner.publish(event);
  }

  subscribe(listener: ChangeListener): () => void {
    return this.inner.subscribe(listener);
  }

  watch(target: ChangeTarget): () => void {
    const place = this.locate(target);
    if (!place) return () => undefined;
    const file = path.join(place.dir, place.file);
    let w = this.watched.get(file);
    if (!w) {
      w = { refs: 0, target: { ...target }, file, dir: place.dir, delivered: versionOf(file) };
      this.watched.set(file, w);
      this.arm(w);
    }
    const entry = w;
    entry.refs++;
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      if (--entry.refs > 0) return;
      this.watched.delete(file);
      this.disarm(entry);
    };
  }

  /** Folders watched now (one fs.watch each), for tests and benchmarks. */
  get watcherCount(): number {
    return this.folders.size;
  }

  /** Stops every watch (the server is closing). */
  close(): void {
    for (const w of this.watched.values()) this.disarm(w);
    this.watched.clear();
    for (const f of this.folders.values()) f.watcher?.close();
    this.folders.clear();
  }

  private find(target: ChangeTarget): Watched | undefined {
    const place = this.locate(target);
    return place ? this.watched.get(path.join(place.dir, place.file)) : undefined;
  }

  /** Whether the target's file is at a version not delivered yet; records it as delivered. */
  private advance(w: Watched): boolean {
    const v = versionOf(w.file);
    if (v === w.delivered) return false;
    w.delivered = v;
    return true;
  }

  /**
   * Watches the target's folder — or, while it does not exist (a session or project not created yet, or deleted),
   * its nearest existing ancestor, moving down as folders appear. A folder replaced under the same name is watched
   * anew (a watch follows the old folder's inode).
   */
  private arm(w: Watched): void {
    const dir = existingAncestor(w.dir);
    const ino = inodeOf(dir);
    const key = `${dir}\0${ino}`;
    const entry = dir === w.dir ? path.basename(w.file) : path.relative(dir, w.dir).split(path.sep)[0];
    if (w.folder?.key === key && w.entry === entry) {
      if (!w.folder.watcher) this.open(w.folder); // its watch failed: try again
      return;
    }
    this.leave(w);
    let folder = this.folders.get(key);
    if (!folder) {
      folder = { key, dir, ino, byEntry: new Map(), size: 0 };
      this.folders.set(key, folder);
    }
    if (!folder.watcher) this.open(folder);
    let waiting = folder.byEntry.get(entry);
    if (!waiting) folder.byEntry.set(entry, (waiting = new Set()));
    waiting.add(w);
    folder.size++;
    w.folder = folder;
    w.entry = entry;
  }

  private open(folder: Folder): void {
    try {
      const watcher = fs.watch(folder.dir, { persistent: false }, (_event, name) => this.heard(folder, name === null ? undefined : String(name)));
      watcher.on('error', (err) => {
        watcher.close();
        if (folder.watcher === watcher) folder.watcher = undefined;
        this.onError(err);
        this.settleAll(folder);
      });
      folder.watcher = watcher;
    } catch (e) {
      this.onError(e as Error);
    }
  }

  /** A file event in `folder`: only the targets waiting on that name, unless the folder itself was replaced or gone. */
  private heard(folder: Folder, name: string | undefined): void {
    if (this.folders.get(folder.key) !== folder) return;
    const waiting = name === undefined ? undefined : folder.byEntry.get(name);
    if (waiting) {
      for (const w of waiting) this.settle(w);
      return;
    }
    // A name nobody waits on (another session's files): one stat tells whether the folder is still the one watched.
    if (name === undefined || inodeOf(folder.dir) !== folder.ino) this.settleAll(folder);
  }

  private settleAll(folder: Folder): void {
    for (const waiting of [...folder.byEntry.values()]) for (const w of [...waiting]) this.settle(w);
  }

  private settle(w: Watched): void {
    if (w.timer) return;
    w.timer = setTimeout(() => {
      w.timer = undefined;
      if (this.watched.get(w.file) !== w) return;
      this.arm(w);
      if (this.advance(w)) this.inner.publish({ ...w.target, at: new Date().toISOString() });
    }, SETTLE_MS);
    w.timer.unref();
  }

  /** Takes `w` out of its folder; the folder's watcher closes with its last target. */
  private leave(w: Watched): void {
    const folder = w.folder;
    if (!folder) return;
    const waiting = folder.byEntry.get(w.entry!);
    if (waiting?.delete(w)) {
      folder.size--;
      if (waiting.size === 0) folder.byEntry.delete(w.entry!);
    }
    w.folder = undefined;
    w.entry = undefined;
    if (folder.size === 0 && this.folders.get(folder.key) === folder) {
      folder.watcher?.close();
      this.folders.delete(folder.key);
    }
  }

  private disarm(w: Watched): void {
    this.leave(w);
    if (w.timer) clearTimeout(w.timer);
    w.timer = undefined;
  }
}

function versionOf(file: string): string {
  try {
    const st = fs.statSync(file);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return 'missing';
  }
}

function inodeOf(dir: string): number {
  try {
    return fs.statSync(dir).ino;
  } catch {
    return -1;
  }
}

function existingAncestor(dir: string): string {
  let at = dir;
  while (!fs.existsSync(at)) {
    const up = path.dirname(at);
    if (up === at) break;
    at = up;
  }
  return at;
}
