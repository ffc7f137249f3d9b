import * as fs from 'node:fs';
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

/**
 * File mode's feed of the kernel's change-event port: the OS's notifications about the data dir (fs.watch,
 * recursive), which every server process writes, become the same events the stores publish in-process — so changes
 * made by any process reach the dashboard (and MCP resource subscriptions). Nothing is re-read on a timer, and an event
 * names the project (or run, or session) so a page re-reads only that.
 */
export class DataDirWatcher {
  private readonly pending = new Map<string, PathChange>();
  private timer: NodeJS.Timeout | undefined;
  private watcher: fs.FSWatcher | undefined;

  constructor(
    private readonly dataDir: string,
    private readonly events: ChangeEvents,
    private readonly onError: (err: Error) => void = () => undefined,
  ) {}

  /** Starts watching (creating the data dir when missing, so a store created later is seen too). */
  start(): this {
    makeDirSync(this.dataDir);
    this.watcher = fs.watch(this.dataDir, { recursive: true, persistent: false }, (_type, filename) => {
      if (!filename) return;
      const ev = classifyDataDirPath(filename.toString());
      if (ev) this.queue(ev);
    });
    this.watcher.on('error', (err) => this.onError(err));
    return this;
  }

  close(): void {
    this.watcher?.close();
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
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
