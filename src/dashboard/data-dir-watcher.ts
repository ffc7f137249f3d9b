import * as fs from 'node:fs';
import type { ChangeEvent, ChangeEventSource } from './change-event';

/** Changes to one (kind, project, id) within this window reach subscribers as one event. */
const COALESCE_MS = 40;

/**
 * Which store a changed path of the data dir belongs to (relative path, `/`-separated), or undefined for files no
 * page shows (locks, temp files of other tools).
 */
export function classifyDataDirPath(rel: string): Omit<ChangeEvent, 'at'> | undefined {
  const parts = rel.split(/[\\/]/).filter(Boolean);
  if (parts.some((p) => p.endsWith('.lock'))) return undefined;
  if (parts[0] === 'projects' && parts.length >= 3) {
    const project = parts[1];
    const name = parts[2];
    if (name.startsWith('task_graph') || name.startsWith('transitions')) return { kind: 'tasks', project };
    if (name.startsWith('knowledge_graph') || name === 'backup') return { kind: 'knowledge', project };
    return undefined;
  }
  if (parts[0] === 'graph-runs' && parts.length >= 2) {
    return { kind: 'graph-run', project: parts[1], ...(parts[2] ? { id: parts[2].replace(/\.json(\.tmp.*)?$/, '') } : {}) };
  }
  if (parts[0] === 'sessions') {
    return { kind: 'session', ...(parts[1] ? { id: parts[1].replace(/\.(json|ndjson)(\.tmp.*)?$/, '') } : {}) };
  }
  return undefined;
}

/**
 * Change events of a file data dir, from the OS's file notifications (fs.watch, recursive): nothing is re-read on a
 * timer, and an event names the project (or run, or session) so pages re-read only that. Every server process writes
 * the same files, so changes made by any of them are seen.
 */
export class DataDirWatcher implements ChangeEventSource {
  private readonly listeners = new Set<(e: ChangeEvent) => void>();
  private readonly pending = new Map<string, Omit<ChangeEvent, 'at'>>();
  private timer: NodeJS.Timeout | undefined;
  private watcher: fs.FSWatcher | undefined;

  constructor(private readonly dataDir: string, private readonly onError: (err: Error) => void = () => undefined) {}

  /** Starts watching (creating the data dir when missing, so a store created later is seen too). */
  start(): this {
    fs.mkdirSync(this.dataDir, { recursive: true });
    this.watcher = fs.watch(this.dataDir, { recursive: true, persistent: false }, (_type, filename) => {
      if (!filename) return;
      const ev = classifyDataDirPath(filename.toString());
      if (ev) this.queue(ev);
    });
    this.watcher.on('error', (err) => this.onError(err));
    return this;
  }

  subscribe(listener: (event: ChangeEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.watcher?.close();
    if (this.timer) clearTimeout(this.timer);
    this.listeners.clear();
  }

  private queue(ev: Omit<ChangeEvent, 'at'>): void {
    this.pending.set(`${ev.kind}\0${ev.project ?? ''}\0${ev.id ?? ''}`, ev);
    this.timer ??= setTimeout(() => this.flush(), COALESCE_MS);
  }

  private flush(): void {
    this.timer = undefined;
    const at = new Date().toISOString();
    const events = [...this.pending.values()];
    this.pending.clear();
    for (const ev of events) for (const l of this.listeners) l({ ...ev, at });
  }
}
