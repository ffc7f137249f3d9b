import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDir } from './helpers/server-process';
import { text, useTasksServers, type Conn, type Structured } from './helpers/tasks-servers';
import { isAlive } from '../helpers/processes';

/**
 * The tasks module's integrity promises through the built server and the SDK client: an answer matches the disk under
 * storage faults (file-size limit, a full tmpfs), damaged files give storage_error, and a data dir of format 1 is
 * upgraded. (A killed server's run recovered through its lease, the retry loop, bounded answers:
 * tasks-validation-runs.test.ts.)
 */

const FIXTURE = path.join(__dirname, '../fixtures/data-dirs/tasks-format-1');

const t = useTasksServers('wg-tasks-integrity-');
const { server, call, ok, refused, nodeOf, projectDir } = t;

/** Copies the format-1 fixture into the test's data dir, pointing its project root at this test's folder. */
function copyFormat1DataDir(): string {
  fs.cpSync(FIXTURE, t.dataDir, { recursive: true });
  const file = path.join(projectDir('legacy-app'), 'task_graph.json');
  const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  doc.project_root = t.projectRoot;
  fs.writeFileSync(file, JSON.stringify(doc, null, 2) + '\n');
  return file;
}

describe('an answer matches the disk', () => {
  it('a transition-log append over the file-size limit fails with storage_error and changes nothing; a torn line never hides the next', async () => {
    const graphFile = copyFormat1DataDir();
    const log = path.join(projectDir('legacy-app'), 'transitions.ndjson');
    // Older history (so the log is the larger file), then a torn last line as a crash mid-append leaves it.
    const history = JSON.stringify({ from: 'READY', to: 'READY', node: 'next', time: new Date(0).toISOString(), attempt: 0 }) + '\n';
    fs.appendFileSync(log, history.repeat(300));
    fs.appendFileSync(log, '{"from":"READY","to":"IN_PR');
    const logBefore = fs.readFileSync(log);
    const graphBefore = fs.readFileSync(graphFile);
    // The limit lets the graph file be rewritten but not the log grow by a transition.
    const limit = logBefore.length + 40;
    expect(graphBefore.length).toBeLessThan(limit);
    const limited = await server({ wrap: ['prlimit', `--fsize=${limit}`] });
    const e = await refused(limited, 'start_task', { project: 'legacy-app', nodeId: 'next' });
    expect(e.code).toBe('storage_error');
    expect(e.message).toContain(log);
    expect(e.message).toMatch(/file-size limit \(EFBIG\); nothing was changed/);
    // The answer matches the disk: still READY, the log and the graph byte for byte as they were.
    expect((await nodeOf(limited, 'legacy-app', 'next')).status).toBe('READY');
    expect(fs.readFileSync(log).equals(logBefore)).toBe(true);
    expect(fs.readFileSync(graphFile).equals(graphBefore)).toBe(true);
    await limited.close();

    // Without the limit the same call works, and its line starts after the torn one, on a line of its own.
    const c = await server();
    expect((await ok(c, 'start_task', { project: 'legacy-app', nodeId: 'next' })).node.status).toBe('IN_PROGRESS');
    const lines = fs.readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const torn = lines.findIndex((l) => l === '{"from":"READY","to":"IN_PR');
    expect(torn).toBeGreaterThan(0);
    const after = lines.slice(torn + 1).map((l) => JSON.parse(l));
    expect(after).toContainEqual(expect.objectContaining({ node: 'next', from: 'READY', to: 'IN_PROGRESS' }));
  }, 60_000);

  const canMount = (() => {
    if (process.getuid?.() !== 0) return false;
    const probe = tempDir('wg-mount-probe-');
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe.dir], { stdio: 'ignore' });
      execFileSync('umount', [probe.dir], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    } finally {
      probe.cleanup();
    }
  })();
  const onTmpfs = canMount ? it : it.skip;

  /** A 1 MiB tmpfs as the data dir, and a filler that takes every free byte. */
  function fullDisk() {
    const mnt = path.join(t.tmp.dir, 'small-disk');
    fs.mkdirSync(mnt);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt]);
    const filler = path.join(mnt, 'filler');
    return {
      data: path.join(mnt, 'data'),
      filler,
      fill() {
        try {
          execFileSync('sh', ['-c', `cat /dev/zero > '${filler}'`], { stdio: 'ignore' });
        } catch {
          /* ENOSPC ends it */
        }
      },
      free: () => fs.rmSync(filler, { force: true }),
      unmount: () => execFileSync('umount', ['-l', mnt]),
    };
  }

  onTmpfs('on a full disk every transition fails as a whole; full service once space is back', async () => {
    const disk = fullDisk();
    try {
      const c = await server({ dataDir: disk.data });
      await ok(c, 'init_project_graph', {
        projectName: 'full', projectRoot: t.projectRoot, nodes: [{ id: 'a', title: 'A', validation_command: 'true' }, { id: 'b', title: 'B', depends_on: ['a'] }],
      });
      const dir = projectDir('full', disk.data);
      const before = { graph: fs.readFileSync(path.join(dir, 'task_graph.json')), log: fs.readFileSync(path.join(dir, 'transitions.ndjson')) };
      disk.fill();
      const e = await refused(c, 'start_task', { project: 'full', nodeId: 'a' });
      expect(e.code).toBe('storage_error');
      expect(e.message).toMatch(/task_graph.json: no space left on the device \(ENOSPC\)|transitions.ndjson: no space left on the device \(ENOSPC\)/);
      expect((await nodeOf(c, 'full', 'a')).status).toBe('READY');
      expect(fs.readFileSync(path.join(dir, 'task_graph.json')).equals(before.graph)).toBe(true);
      expect(fs.readFileSync(path.join(dir, 'transitions.ndjson')).equals(before.log)).toBe(true);
      disk.free();
      expect((await ok(c, 'start_task', { project: 'full', nodeId: 'a' })).node.status).toBe('IN_PROGRESS');
      expect((await ok(c, 'validate_task_loop', { project: 'full', nodeId: 'a' })).validation_passed).toBe(true);
    } finally {
      for (const c of t.open.splice(0)) await c.close().catch(() => undefined);
      disk.unmount();
    }
  }, 60_000);

  onTmpfs('a verdict that cannot be written is a storage_error carrying the result; the same server recovers the node at once', async () => {
    const disk = fullDisk();
    try {
      const c = await server({ dataDir: disk.data });
      const once = path.join(t.projectRoot, 'filled-once');
      const graphFile = path.join(projectDir('verdict', disk.data), 'task_graph.json');
      // The command fills the disk (once) and passes: its verdict then cannot be written. It fills only once the server
      // has recorded the command's process group in the graph file: that write runs beside the command, and when its
      // rename came after the fill it freed the old graph file's pages, so the verdict fitted (this test's flake under load).
      const pgidRecorded = `n=0; until grep -q '"pgid"' '${graphFile}'; do n=$((n+1)); [ $n -gt 600 ] && { echo 'pgid never recorded' >&2; exit 3; }; sleep 0.05; done`;
      const command = `if [ ! -f '${once}' ]; then touch '${once}'; ${pgidRecorded}; cat /dev/zero > '${disk.filler}' 2>/dev/null; fi; echo all good; exit 0`;
      await ok(c, 'init_project_graph', { projectName: 'verdict', projectRoot: t.projectRoot, nodes: [{ id: 'a', title: 'A', validation_command: command }] });
      await ok(c, 'start_task', { project: 'verdict', nodeId: 'a' });
      const r = await call(c, 'validate_task_loop', { project: 'verdict', nodeId: 'a' });
      expect(r.isError).toBe(true);
      expect(r._meta?.['workgraph/errorCode']).toBe('storage_error');
      expect(text(r)).toMatch(/validation of task 'a' passed \(exit 0\) but its verdict could not be written: .*ENOSPC.*recoverable at once/);
      expect((await nodeOf(c, 'verdict', 'a')).status).toBe('VALIDATING');
      disk.free();
      // Not after timeout_ms + 30 s: the owner is this process and its run has ended, so the next call runs again.
      const again = await ok(c, 'validate_task_loop', { project: 'verdict', nodeId: 'a' });
      expect(again).toMatchObject({ validation_passed: true, attempt: 1, replayed: false });
      expect(again.result.stdout).toBe('all good\n');
    } finally {
      for (const c of t.open.splice(0)) await c.close().catch(() => undefined);
      disk.unmount();
    }
  }, 60_000);
});

describe('damaged and unreadable task files', () => {
  async function withGraphFile(content: string | null): Promise<{ c: Conn; file: string }> {
    const c = await server();
    await ok(c, 'init_project_graph', { projectName: 'dmg', projectRoot: t.projectRoot, nodes: [{ id: 'a', title: 'A' }] });
    const file = path.join(projectDir('dmg'), 'task_graph.json');
    if (content !== null) fs.writeFileSync(file, content);
    return { c, file };
  }

  it('a truncated file: reads name the file and the way out; init_project_graph replace: true works and keeps the damaged copy', async () => {
    const { c, file } = await withGraphFile(null);
    const whole = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, whole.slice(0, Math.floor(whole.length / 2)));
    for (const tool of ['get_project_graph', 'get_ready_tasks', 'start_task'] as const) {
      const e = await refused(c, tool, { project: 'dmg', ...(tool === 'start_task' ? { nodeId: 'a' } : {}) });
      expect(e.code).toBe('storage_error');
      expect(e.message).toContain(`task graph file ${file} is damaged: it is not valid JSON`);
      expect(e.message).toContain('init_project_graph with replace: true');
    }
    const again = await refused(c, 'init_project_graph', { projectName: 'dmg', projectRoot: t.projectRoot, nodes: [{ id: 'a', title: 'A' }] });
    expect(again.code).toBe('storage_error');
    const replaced = await ok(c, 'init_project_graph', { projectName: 'dmg', projectRoot: t.projectRoot, nodes: [{ id: 'x', title: 'X' }], replace: true });
    expect(replaced.nodes.map((n: Structured) => n.id)).toEqual(['x']);
    const aside = fs.readdirSync(projectDir('dmg')).filter((f) => f.startsWith('task_graph.json.damaged-'));
    expect(aside).toHaveLength(1);
    expect(fs.readFileSync(path.join(projectDir('dmg'), aside[0]), 'utf8')).toBe(whole.slice(0, Math.floor(whole.length / 2)));
    expect((await ok(c, 'start_task', { project: 'dmg', nodeId: 'x' })).node.status).toBe('IN_PROGRESS');
  }, 60_000);

  it.each([
    ['nodes: [null]', (g: Structured) => ({ ...g, nodes: [null] }), /nodes\[0\] is null, not a task node/],
    ['an unknown status', (g: Structured) => ({ ...g, nodes: [{ ...g.nodes[0], status: 'DONE' }] }), /nodes\[0\]\.status is "DONE", not one of PENDING, READY/],
    ['no nodes', (g: Structured) => ({ ...g, nodes: undefined }), /nodes is missing, not an array of task nodes/],
    ['a newer format', (g: Structured) => ({ ...g, schema_version: 99 }), /written by a newer workgraph \(format 99; this version reads formats 1 to 2\)/],
  ])('a hand-edited file with %s is a storage_error naming the file and the problem', async (_name, edit, problem) => {
    const { c, file } = await withGraphFile(null);
    fs.writeFileSync(file, JSON.stringify(edit(JSON.parse(fs.readFileSync(file, 'utf8')))));
    const e = await refused(c, 'get_project_graph', { project: 'dmg' });
    expect(e.code).toBe('storage_error');
    expect(e.message).toContain(file);
    expect(e.message).toMatch(problem);
    expect(e.message).not.toMatch(/internal_error|Cannot read properties/);
  }, 60_000);

  it('a folder where the file should be (EISDIR) is a storage_error naming it', async () => {
    const { c, file } = await withGraphFile(null);
    fs.rmSync(file);
    fs.mkdirSync(file);
    const e = await refused(c, 'start_task', { project: 'dmg', nodeId: 'a' });
    expect(e.code).toBe('storage_error');
    expect(e.message).toContain(`cannot read the task graph file ${file}: it is a folder, not a file (EISDIR)`);
  }, 60_000);
});

describe('format 1 data dir (a copy of what the previous version wrote)', () => {
  it('reads as it is, and is upgraded on the first write: attempt records bounded, older ones moved to the log', async () => {
    const graphFile = copyFormat1DataDir();
    const log = path.join(projectDir('legacy-app'), 'transitions.ndjson');
    const old = JSON.parse(fs.readFileSync(graphFile, 'utf8'));
    expect(old.schema_version).toBe(1);
    expect(old.nodes[0].error_logs).toHaveLength(25);
    const c = await server();
    const flaky = await nodeOf(c, 'legacy-app', 'flaky');
    expect(flaky).toMatchObject({ status: 'RETRYING', current_attempt: 25 });
    expect(flaky.error_logs.map((e: Structured) => e.attempt)).toEqual(Array.from({ length: 20 }, (_, i) => i + 6));
    // Reading changed nothing on disk.
    expect(JSON.parse(fs.readFileSync(graphFile, 'utf8')).schema_version).toBe(1);

    expect((await ok(c, 'reset_task_node', { project: 'legacy-app', nodeId: 'done' })).node.status).toBe('READY');
    const upgraded = JSON.parse(fs.readFileSync(graphFile, 'utf8'));
    expect(upgraded.schema_version).toBe(2);
    expect(upgraded.transition_log_bytes).toBe(fs.statSync(log).size);
    expect(upgraded.nodes[0].error_logs).toHaveLength(20);
    const lines = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const archived = lines.filter((l) => l.kind === 'attempt_record');
    expect(archived.map((l) => l.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(archived[0].record).toEqual(old.nodes[0].error_logs[0]);
    // Every one of the 25 attempt records is still somewhere: 5 in the log, 20 on the node.
    expect([...archived.map((l) => l.record), ...upgraded.nodes[0].error_logs]).toEqual(old.nodes[0].error_logs);
    // The old transitions are all still there, and the upgraded project works on.
    expect(lines.filter((l) => l.node === 'flaky' && l.to === 'RETRYING')).toHaveLength(25);
    const next = await ok(c, 'validate_task_loop', { project: 'legacy-app', nodeId: 'flaky' });
    expect(next).toMatchObject({ attempt: 26, replayed: false, validation_passed: false });
    expect((await nodeOf(c, 'legacy-app', 'flaky')).error_logs).toHaveLength(20);
    expect(isAlive(c.transport.pid!)).toBe(true);
  }, 60_000);
});
