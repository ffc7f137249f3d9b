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
  watcher?: fs.FSWatcher;
  /** The folder watched (the target's, or its nearest existing ancestor until it exists) and its inode. */
  watching?: string;
  timer?: NodeJS.Timeout;
}

/**
 * The change-event port of a file data dir shared by several server processes: this process's stores publish as
 * usual, and for each watched target (a resource some client subscribed to) the folder holding it is watched
 * (fs.watch, no polling) so that a change another process makes is published here too. A change reaches listeners
 * once: each delivery records the version of the target's file, and an event whose file is at the version already
 * delivered — this process's own write heard again through the file system, or the store's event after the watcher
 * saw its write first — is dropped. Targets nobody watches pass through untouched.
 */
export class FileWatchingChangeEvents implements ChangeEvents {
  private readonly inner = new InProcessChangeEvents();
  /** By the path of the target's file. */
  private readonly watched = new Map<string, Watched>();

  constructor(
    private readonly locate: (target: ChangeTarget) => ChangeFile | undefined,
    private readonly onError: (err: Error) => void = () => undefined,
  ) {}

  publish(event: ChangeEvent): void {
    const w = this.find(event);
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

  /** Stops every watch (the server is closing). */
  close(): void {
    for (const w of this.watched.values()) this.disarm(w);
    this.watched.clear();
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
    const where = `${dir}\0${inodeOf(dir)}`;
    if (w.watcher && w.watching === where) return;
    w.watcher?.close();
    w.watcher = undefined;
    w.watching = where;
    try {
      const watcher = fs.watch(dir, { persistent: false }, () => this.settle(w));
      watcher.on('error', (err) => {
        watcher.close();
        if (w.watcher === watcher) w.watcher = undefined;
        this.onError(err);
        this.settle(w);
      });
      w.watcher = watcher;
    } catch (e) {
      this.onError(e as Error);
    }
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

  private disarm(w: Watched): void {
    w.watcher?.close();
    w.watcher = undefined;
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
