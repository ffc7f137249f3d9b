import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { useTasksServers, type Structured } from './helpers/tasks-servers';
import { waitFor } from './helpers/http-server';
import { isAlive, waitUntilGone } from '../helpers/processes';

/**
 * The tasks module's validation runs through the built server and the SDK client: a killed server's run is
 * recoverable at once through its lease (its command tree killed first; a live owner's run refused), RETRYING starts
 * the next attempt, a result that ended while nobody waited is handed out once, marked (and survives a restart), and
 * answers are bounded (output tails, --output-tail, output_tail_bytes). (Storage faults, damaged files, format 1:
 * tasks-integrity.test.ts.)
 */

const t = useTasksServers('wg-tasks-runs-');
const { server, call, ok, refused, nodeOf, projectDir } = t;

describe('run owner lease', () => {
  it('a server SIGKILLed mid-validation leaves a node a new server recovers at once (not after timeout_ms + 30 s)', async () => {
    const first = path.join(t.projectRoot, 'first-run');
    const pidFile = path.join(t.projectRoot, 'sleep.pid');
    // First run: hangs (its pid recorded); any later run passes at once.
    const command = `if [ -f '${first}' ]; then echo second run; exit 0; fi; touch '${first}'; sleep 300 & echo $! > '${pidFile}'; wait`;
    const a = await server();
    await ok(a, 'init_project_graph', {
      projectName: 'lease', projectRoot: t.projectRoot,
      nodes: [{ id: 'a', title: 'A', validation_command: command, timeout_ms: 3_600_000 }, { id: 'b', title: 'B', validation_command: `sleep 300`, timeout_ms: 3_600_000 }],
    });
    await ok(a, 'start_task', { project: 'lease', nodeId: 'a' });
    await ok(a, 'start_task', { project: 'lease', nodeId: 'b' });
    expect(await ok(a, 'validate_task_loop', { project: 'lease', nodeId: 'a', waitSeconds: 0.2 })).toMatchObject({ running: true, attempt: 1 });
    expect(await ok(a, 'validate_task_loop', { project: 'lease', nodeId: 'b', waitSeconds: 0.2 })).toMatchObject({ running: true });
    const sleeper = await waitFor('sleep pid', () => (fs.existsSync(pidFile) && Number(fs.readFileSync(pidFile, 'utf8').trim())) || undefined);
    t.leftovers.push(sleeper);
    const owner = (await nodeOf(a, 'lease', 'a')).owner;
    const serverPid = a.transport.pid!;
    expect(owner).toMatchObject({ pid: serverPid, host: expect.any(String), expires_at: expect.any(String) });
    if (fs.existsSync('/proc/sys/kernel/random/boot_id')) {
      expect(owner.boot_id).toBe(fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
    }
    process.kill(serverPid, 'SIGKILL');
    expect(await waitUntilGone(serverPid)).toBe(true);

    const b = await server();
    const started = Date.now();
    const r = await ok(b, 'validate_task_loop', { project: 'lease', nodeId: 'a' });
    expect(r).toMatchObject({ validation_passed: true, attempt: 1, replayed: false });
    expect(r.result.stdout).toBe('second run\n');
    // And reset works at once too.
    expect((await ok(b, 'reset_task_node', { project: 'lease', nodeId: 'b' })).node.status).toBe('READY');
    // Generous bound, far below the old rule's timeout_ms + 30 s (an hour here).
    expect(Date.now() - started).toBeLessThan(60_000);
    const log = fs.readFileSync(path.join(projectDir('lease'), 'transitions.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const moves = log.filter((t) => t.node === 'a' && t.from !== t.to).map((t) => `${t.from}>${t.to}`);
    expect(moves).toEqual(['READY>IN_PROGRESS', 'IN_PROGRESS>VALIDATING', 'VALIDATING>IN_PROGRESS', 'IN_PROGRESS>VALIDATING', 'VALIDATING>COMPLETED']);
  }, 90_000);

  it('after a SIGKILL mid-validation the next server kills the dead owner\'s command tree before it runs the task again (never two runs at once)', async () => {
    const first = path.join(t.projectRoot, 'first-run');
    const pidFile = path.join(t.projectRoot, 'sleep.pid');
    // First run: hangs, its background sleep recorded; a later run says whether the first one is still running.
    const command =
      `if [ -f '${first}' ]; then p=$(cat '${pidFile}'); if [ -e /proc/$p ] && ! grep -q '^State:[[:space:]]*Z' /proc/$p/status 2>/dev/null; then echo concurrent; exit 1; fi; echo alone; exit 0; fi; ` +
      `touch '${first}'; sleep 300 & echo $! > '${pidFile}'; wait`;
    const a = await server();
    await ok(a, 'init_project_graph', {
      projectName: 'orphan', projectRoot: t.projectRoot,
      nodes: [{ id: 'a', title: 'A', validation_command: command, timeout_ms: 3_600_000 }, { id: 'b', title: 'B', validation_command: 'sleep 300', timeout_ms: 3_600_000 }],
    });
    await ok(a, 'start_task', { project: 'orphan', nodeId: 'a' });
    await ok(a, 'start_task', { project: 'orphan', nodeId: 'b' });
    await ok(a, 'validate_task_loop', { project: 'orphan', nodeId: 'a', waitSeconds: 0.2 });
    await ok(a, 'validate_task_loop', { project: 'orphan', nodeId: 'b', waitSeconds: 0.2 });
    const sleeper = await waitFor('sleep pid', () => (fs.existsSync(pidFile) && Number(fs.readFileSync(pidFile, 'utf8').trim())) || undefined);
    t.leftovers.push(sleeper);
    // The lease names the run's process group once the command started; the run id is in the command's environment.
    const owner = await waitFor('pgid in the lease', async () => {
      const o = (await nodeOf(a, 'orphan', 'a')).owner;
      return o?.pgid ? o : undefined;
    });
    const ownerB = await waitFor('pgid of b', async () => (await nodeOf(a, 'orphan', 'b')).owner?.pgid && (await nodeOf(a, 'orphan', 'b')).owner);
    expect(fs.readFileSync(`/proc/${sleeper}/environ`, 'latin1')).toContain(`WORKGRAPH_COMMAND_ID=${owner.run_id}\0`);
    const serverPid = a.transport.pid!;
    process.kill(serverPid, 'SIGKILL');
    expect(await waitUntilGone(serverPid)).toBe(true);
    expect(isAlive(sleeper)).toBe(true); // the dead server's command lives on in its own process group

    const b = await server();
    const r = await ok(b, 'validate_task_loop', { project: 'orphan', nodeId: 'a' });
    expect(r.result.stdout).toBe('alone\n');
    expect(r).toMatchObject({ validation_passed: true });
    expect(await waitUntilGone(sleeper)).toBe(true);
    // A reset takes a run over too: b's orphaned command is killed, not left running beside the next attempt.
    expect(isAlive(ownerB.pgid)).toBe(true);
    expect((await ok(b, 'reset_task_node', { project: 'orphan', nodeId: 'b' })).node.status).toBe('READY');
    expect(await waitUntilGone(ownerB.pgid)).toBe(true);
  }, 90_000);

  it('a run held by a live server is refused by another, naming the owner', async () => {
    const a = await server();
    // The command runs until the test releases it, however slowly the second server starts.
    const release = path.join(t.projectRoot, 'release');
    await ok(a, 'init_project_graph', {
      projectName: 'held', projectRoot: t.projectRoot, nodes: [{ id: 'a', title: 'A', validation_command: `while [ ! -f '${release}' ]; do sleep 0.1; done` }],
    });
    await ok(a, 'start_task', { project: 'held', nodeId: 'a' });
    expect(await ok(a, 'validate_task_loop', { project: 'held', nodeId: 'a', waitSeconds: 0.1 })).toMatchObject({ running: true });
    const b = await server();
    const e = await refused(b, 'validate_task_loop', { project: 'held', nodeId: 'a' });
    expect(e.code).toBe('conflict');
    expect(e.message).toContain(`another server process (pid ${a.transport.pid} on host`);
    fs.writeFileSync(release, '');
    expect((await ok(a, 'validate_task_loop', { project: 'held', nodeId: 'a' })).validation_passed).toBe(true);
  }, 60_000);
});

describe('the retry loop', () => {
  it('on RETRYING, validate_task_loop starts the next attempt at once (no start_task)', async () => {
    const c = await server();
    await ok(c, 'init_project_graph', { projectName: 'retry', projectRoot: t.projectRoot, nodes: [{ id: 'a', title: 'A', validation_command: 'test -f fixed' }] });
    await ok(c, 'start_task', { project: 'retry', nodeId: 'a' });
    const failed = await ok(c, 'validate_task_loop', { project: 'retry', nodeId: 'a' });
    expect(failed).toMatchObject({ validation_passed: false, attempt: 1, replayed: false, node: { status: 'RETRYING' } });
    expect(failed.message).toContain('call validate_task_loop again to start the next attempt');
    fs.writeFileSync(path.join(t.projectRoot, 'fixed'), '');
    const passed = await ok(c, 'validate_task_loop', { project: 'retry', nodeId: 'a' });
    expect(passed).toMatchObject({ validation_passed: true, attempt: 2, replayed: false, node: { status: 'COMPLETED', current_attempt: 2 } });
  }, 60_000);

  it('a run that ends after a running answer is kept on the node and handed out once, marked; then the next attempt starts', async () => {
    const c = await server();
    const runs = path.join(t.projectRoot, 'runs');
    const release = path.join(t.projectRoot, 'release');
    await ok(c, 'init_project_graph', {
      projectName: 'late', projectRoot: t.projectRoot,
      nodes: [{ id: 'a', title: 'A', validation_command: `echo run >> '${runs}'; while [ ! -f '${release}' ]; do sleep 0.1; done; rm -f '${release}'; echo late failure; exit 4` }],
    });
    await ok(c, 'start_task', { project: 'late', nodeId: 'a' });
    expect(await ok(c, 'validate_task_loop', { project: 'late', nodeId: 'a', waitSeconds: 0 })).toMatchObject({ running: true, attempt: 1 });
    fs.writeFileSync(release, '');
    const node = await waitFor('the run to end', async () => {
      const n = await nodeOf(c, 'late', 'a');
      return n.status === 'RETRYING' && n;
    });
    expect(node.last_run).toMatchObject({ attempt: 1, passed: false, exit_code: 4, delivered: false, stdout_tail: 'late failure\n' });
    const replay = await ok(c, 'validate_task_loop', { project: 'late', nodeId: 'a' });
    expect(replay).toMatchObject({ validation_passed: false, replayed: true, attempt: 1, result: { exitCode: 4, stdout: 'late failure\n' } });
    expect(replay.message).toMatch(/^result of attempt 1 \(run .*\), given again: validation failed on attempt 1\/3/);
    expect((await nodeOf(c, 'late', 'a')).last_run.delivered).toBe(true);
    expect(fs.readFileSync(runs, 'utf8')).toBe('run\n');
    // The result was given: the next call is a new attempt, never the old result as a new one.
    fs.writeFileSync(release, '');
    const next = await ok(c, 'validate_task_loop', { project: 'late', nodeId: 'a' });
    expect(next).toMatchObject({ replayed: false, attempt: 2, validation_passed: false });
    expect(fs.readFileSync(runs, 'utf8')).toBe('run\nrun\n');
  }, 60_000);

  it('the kept result survives a restart', async () => {
    const a = await server();
    const release = path.join(t.projectRoot, 'release');
    await ok(a, 'init_project_graph', {
      projectName: 'restart', projectRoot: t.projectRoot, nodes: [{ id: 'a', title: 'A', validation_command: `while [ ! -f '${release}' ]; do sleep 0.1; done` }],
    });
    await ok(a, 'start_task', { project: 'restart', nodeId: 'a' });
    expect(await ok(a, 'validate_task_loop', { project: 'restart', nodeId: 'a', waitSeconds: 0 })).toMatchObject({ running: true });
    fs.writeFileSync(release, '');
    await waitFor('COMPLETED', async () => (await nodeOf(a, 'restart', 'a')).status === 'COMPLETED');
    await a.close();
    const b = await server();
    expect(await ok(b, 'validate_task_loop', { project: 'restart', nodeId: 'a' })).toMatchObject({ validation_passed: true, replayed: true, attempt: 1 });
  }, 60_000);
});

describe('bounded answers', () => {
  const noisy = `node -e "for (let i = 0; i < 5000; i++) console.log('out line ' + i); for (let i = 0; i < 5000; i++) console.error('err line ' + i)"; exit 1`;

  it('tails default to 8 KiB per stream, the answer lists only the current attempt, stored records stay bounded', async () => {
    const c = await server();
    await ok(c, 'init_project_graph', { projectName: 'big', projectRoot: t.projectRoot, nodes: [{ id: 'a', title: 'A', validation_command: noisy, max_attempts: 5 }] });
    await ok(c, 'start_task', { project: 'big', nodeId: 'a' });
    await ok(c, 'validate_task_loop', { project: 'big', nodeId: 'a' });
    const r = await call(c, 'validate_task_loop', { project: 'big', nodeId: 'a' });
    const answer = r.structuredContent as Structured;
    expect(answer.attempt).toBe(2);
    expect(Buffer.byteLength(answer.result.stdout)).toBeLessThanOrEqual(8 * 1024);
    expect(Buffer.byteLength(answer.result.stderr)).toBeLessThanOrEqual(8 * 1024);
    expect(answer.result.stdout.endsWith('out line 4999\n')).toBe(true);
    expect(answer.result.truncated).toBe(true);
    expect(answer.node.error_logs.map((e: Structured) => e.attempt)).toEqual([2]);
    expect(answer.node.last_run).toBeUndefined();
    // The whole answer (structured + text) stays small: two 8 KiB tails, one 4 KiB-per-stream record, twice.
    expect(JSON.stringify(r).length).toBeLessThan(2 * (16 + 8 + 4) * 1024);
    const node = await nodeOf(c, 'big', 'a');
    expect(node.error_logs.map((e: Structured) => e.attempt)).toEqual([1, 2]);
    for (const e of node.error_logs) expect(Buffer.byteLength(e.stdout_tail)).toBeLessThanOrEqual(4 * 1024);
    expect(Buffer.byteLength(node.last_run.stdout_tail)).toBeLessThanOrEqual(8 * 1024);
  }, 60_000);

  it('--output-tail sets the server default and output_tail_bytes a node its own', async () => {
    const c = await server({ args: ['--output-tail', '1024'] });
    await ok(c, 'init_project_graph', {
      projectName: 'tails', projectRoot: t.projectRoot,
      nodes: [{ id: 'a', title: 'A', validation_command: noisy }, { id: 'b', title: 'B', validation_command: noisy, output_tail_bytes: 300 }],
    });
    for (const [id, max] of [['a', 1024], ['b', 300]] as const) {
      await ok(c, 'start_task', { project: 'tails', nodeId: id });
      const r = await ok(c, 'validate_task_loop', { project: 'tails', nodeId: id });
      expect(Buffer.byteLength(r.result.stdout)).toBeLessThanOrEqual(max);
      expect(Buffer.byteLength(r.result.stdout)).toBeGreaterThan(max - 20);
      expect(r.result.stdout.endsWith('out line 4999\n')).toBe(true);
    }
  }, 60_000);

  it('a bad --output-tail is refused at start, naming the flag', () => {
    let err = '';
    try {
      execFileSync(process.execPath, [path.join(__dirname, '../../dist/cli/main.js'), 'serve', '--output-tail', 'lots'], { stdio: 'pipe', input: '' });
    } catch (e) {
      err = String((e as { stderr: Buffer }).stderr);
    }
    expect(err).toMatch(/--output-tail <bytes>.*expected a whole number of bytes from 256 to 65536, got 'lots'/);
  });
});
