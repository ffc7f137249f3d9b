import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { InProcessChangeEvents, type ChangeEvent } from '../../../src/kernel/change-events';
import { DataDirWatcher } from '../../../src/dashboard/data-dir-watcher';
import type { GraphRunRecord } from '../../../src/modules/graph/domain/graph-run-record';

/**
 * The dashboard's feed of other processes' writes (file mode): each write to a shown file becomes its store's change
 * event — however late this process's event loop gets to the OS's notifications (a loaded machine).
 */
const TOOL = 'slow_loop';
const RUN = 'r1-abc';

function record(status: 'running' | 'completed', nodeExecutions: number): GraphRunRecord {
  const startedAt = '2026-12-02T10:00:00.000Z';
  return { runId: RUN, tool: TOOL, status, startedAt, endedAt: startedAt, durationMs: 5, nodeExecutions, input: {}, executions: [], truncated: false, ...(status === 'running' ? { currentNode: 'wait' } : {}) };
}

/**
 * Saves a run record from another process through the real store, while this process's event loop is blocked: the
 * whole write (temp file made, written, renamed over the record) is over before this process reads a notification.
 */
function saveWhileBusy(dataDir: string, r: GraphRunRecord): void {
  execFileSync(process.execPath, [path.join(__dirname, 'run-record-saver.js'), dataDir, JSON.stringify(r)], { stdio: ['ignore', 'ignore', 'inherit'] });
}

async function until(cond: () => boolean, ms = 20_000): Promise<boolean> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
  return cond();
}

/** Long enough for the notifications of a write and the watcher's coalescing window on a loaded machine. */
const quiet = () => new Promise((r) => setTimeout(r, 600));

describe('DataDirWatcher', () => {
  let dataDir: string;
  let watcher: DataDirWatcher;
  let seen: ChangeEvent[];
  const runEvents = () => seen.filter((e) => e.kind === 'graph-run' && e.id === RUN && e.project === TOOL);

  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-ddw-'));
    const events = new InProcessChangeEvents();
    seen = [];
    events.subscribe((e) => seen.push(e));
    watcher = new DataDirWatcher(dataDir, events).start();
  });
  afterEach(() => {
    watcher.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('tells of a run record replaced by another process while this process was busy (the final record of a live run)', async () => {
    saveWhileBusy(dataDir, record('running', 1));
    expect(await until(() => runEvents().length > 0)).toBe(true);
    // The record replaced once more with this process's loop free: the replaced file is no longer what is watched.
    saveWhileBusy(dataDir, record('running', 2));
    await quiet();
    seen = [];
    // The final record, written while this process's loop was blocked from before the temp file was made until after
    // it was renamed: its notifications are read only afterwards.
    saveWhileBusy(dataDir, record('completed', 3));
    expect(await until(() => runEvents().length > 0)).toBe(true);
  }, 60_000);

  it('tells of a change in a folder made after the start whose files were written before its watch began', async () => {
    fs.mkdirSync(path.join(dataDir, 'projects', 'new-app'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'projects', 'new-app', 'task_graph.json'), '{}');
    expect(await until(() => seen.some((e) => e.kind === 'tasks' && e.id === 'new-app'))).toBe(true);
    // And later changes there, through the folder's own watch.
    await quiet();
    seen = [];
    fs.appendFileSync(path.join(dataDir, 'projects', 'new-app', 'history.ndjson'), '{}\n');
    expect(await until(() => seen.some((e) => e.kind === 'tasks' && e.id === 'new-app'))).toBe(true);
  }, 60_000);

  it('watches a folder removed and made again under the same name anew', async () => {
    saveWhileBusy(dataDir, record('running', 1));
    expect(await until(() => runEvents().length > 0)).toBe(true);
    fs.rmSync(path.join(dataDir, 'graph-runs', TOOL), { recursive: true });
    await quiet();
    fs.mkdirSync(path.join(dataDir, 'graph-runs', TOOL));
    await quiet();
    seen = [];
    saveWhileBusy(dataDir, record('completed', 3));
    expect(await until(() => runEvents().length > 0)).toBe(true);
  }, 60_000);

  it('leaves lock folders and folders no page shows unwatched', async () => {
    fs.mkdirSync(path.join(dataDir, 'projects', 'app'), { recursive: true });
    expect(await until(() => watcher.folderCount === 3)).toBe(true); // the data dir, projects/, projects/app/
    fs.mkdirSync(path.join(dataDir, 'projects', 'app', '.lock'));
    fs.mkdirSync(path.join(dataDir, 'elsewhere', 'deep'), { recursive: true });
    await quiet();
    expect(watcher.folderCount).toBe(3);
    expect(seen.filter((e) => e.id !== 'app')).toEqual([]);
  }, 60_000);
});
