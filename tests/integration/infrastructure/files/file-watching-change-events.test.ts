import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ChangeEvent } from '../../../../src/kernel/change-events';
import { FileWatchingChangeEvents } from '../../../../src/kernel/files/file-watching-change-events';
import { dataDirChangeFiles } from '../../../../src/server/change-event-files';

const ID = '0123456789abcdef';
const SESSION = { kind: 'session' as const, id: ID };

/** Appends a line to a file from another process (mkdir -p first), as a second server would. */
function appendElsewhere(file: string, line: string): void {
  execFileSync(process.execPath, ['-e', `const fs=require('fs');fs.mkdirSync(require('path').dirname(process.argv[1]),{recursive:true});fs.appendFileSync(process.argv[1],process.argv[2]+'\\n')`, file, line]);
}

async function until(cond: () => boolean, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 25));
}

/** Long enough for a watcher event and its settle window on a loaded machine. */
const quiet = () => new Promise((r) => setTimeout(r, 600));

describe('FileWatchingChangeEvents (change events of a file data dir shared by processes)', () => {
  let dataDir: string;
  let events: FileWatchingChangeEvents;
  let seen: ChangeEvent[];
  const log = () => path.join(dataDir, 'sessions', ID, 'events.ndjson');

  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-fwce-'));
    events = new FileWatchingChangeEvents(dataDirChangeFiles(dataDir));
    seen = [];
    events.subscribe((e) => seen.push(e));
  });
  afterEach(() => {
    events.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("publishes another process's change to a watched session, once", async () => {
    appendElsewhere(log(), '{"kind":"session_started"}');
    const stop = events.watch(SESSION);
    appendElsewhere(log(), '{"kind":"step_completed"}');
    await until(() => seen.length > 0);
    await quiet();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ kind: 'session', id: ID });
    expect(Date.parse(seen[0].at)).not.toBeNaN();
    stop();
  }, 60_000);

  it('delivers its own store change once: the write heard again through the file system is dropped', async () => {
    appendElsewhere(log(), '{"kind":"session_started"}');
    events.watch(SESSION);
    fs.appendFileSync(log(), '{"kind":"step_completed"}\n');
    events.publish({ ...SESSION, at: new Date().toISOString() });
    await quiet();
    expect(seen).toHaveLength(1);
    // The same event published again with the file unchanged (a second store event for one write) is not repeated.
    events.publish({ ...SESSION, at: new Date().toISOString() });
    expect(seen).toHaveLength(1);
  }, 60_000);

  it('watches a session that does not exist yet (not even the sessions folder) and hears its creation', async () => {
    events.watch(SESSION);
    appendElsewhere(log(), '{"kind":"session_started"}');
    await until(() => seen.length > 0);
    expect(seen[0]).toMatchObject({ kind: 'session', id: ID });
    appendElsewhere(log(), '{"kind":"step_completed"}');
    await until(() => seen.length > 1);
    expect(seen).toHaveLength(2);
  }, 60_000);

  it('hears a project task graph replaced by rename (atomic write) and stops hearing once every watcher stopped', async () => {
    const project = { kind: 'tasks' as const, project: 'demo', id: 'demo' };
    const graph = path.join(dataDir, 'projects', 'demo', 'task_graph.json');
    fs.mkdirSync(path.dirname(graph), { recursive: true });
    fs.writeFileSync(graph, '{"v":1}');
    const stopA = events.watch(project);
    const stopB = events.watch(project);
    execFileSync(process.execPath, ['-e', `const fs=require('fs');fs.writeFileSync(process.argv[1]+'.tmp','{"v":2}');fs.renameSync(process.argv[1]+'.tmp',process.argv[1])`, graph]);
    await until(() => seen.length > 0);
    expect(seen[0]).toMatchObject({ kind: 'tasks', project: 'demo' });
    stopA();
    appendElsewhere(graph, ' ');
    await until(() => seen.length > 1);
    expect(seen).toHaveLength(2);
    stopB();
    appendElsewhere(graph, ' ');
    await quiet();
    expect(seen).toHaveLength(2);
  }, 60_000);

  it('one watcher per folder whatever the number of targets: 2,000 absent sessions share one, a real one is still heard', async () => {
    fs.mkdirSync(path.join(dataDir, 'sessions'), { recursive: true });
    const stops = Array.from({ length: 2_000 }, (_, i) => events.watch({ kind: 'session', id: i.toString(16).padStart(16, '0') }));
    expect(events.watcherCount).toBe(1);
    const stop = events.watch(SESSION);
    appendElsewhere(log(), '{"kind":"session_started"}');
    await until(() => seen.length > 0);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ kind: 'session', id: ID });
    // The created session moved down to its own folder; the absent ones still share the one on sessions/.
    expect(events.watcherCount).toBe(2);
    appendElsewhere(log(), '{"kind":"step_completed"}');
    await until(() => seen.length > 1);
    await quiet();
    expect(seen).toHaveLength(2);
    for (const s of stops) s();
    expect(events.watcherCount).toBe(1);
    stop();
    expect(events.watcherCount).toBe(0);
  }, 60_000);

  it('passes events of unwatched targets through, and ignores targets outside the stores', () => {
    events.publish({ kind: 'knowledge', project: 'p', id: 'p', at: 'now' });
    events.publish({ ...SESSION, at: 'now' });
    expect(seen).toHaveLength(2);
    expect(events.watch({ kind: 'session', id: '../etc' })).toEqual(expect.any(Function));
  });
});
