import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { CancelledError, InvalidTransitionError } from '../../../src/kernel/errors';
import type { CallContext } from '../../../src/kernel/call-context';
import { LOCAL_IDENTITY } from '../../../src/kernel/identity';
import type { ValidationFinalAnswer } from '../../../src/modules/tasks/application/use-cases/validate-task-loop';
import { isAlive, taskFixture, waitUntil, type TaskFixture } from './task-fixture';

let fx: TaskFixture;
beforeEach(async () => {
  fx = await taskFixture();
});
afterEach(async () => {
  await fx.cleanup();
});

async function initOne(command: string | undefined, extra: Record<string, unknown> = {}) {
  await fx.init.execute({
    projectName: 'Demo App',
    projectRoot: fx.projectRoot,
    nodes: [
      { id: 'a', title: 'A', ...(command !== undefined ? { validation_command: command } : {}), ...extra },
      { id: 'b', title: 'B', depends_on: ['a'] },
    ],
  });
  await fx.start.execute({ project: 'demo-app', nodeId: 'a' });
}

const final = (x: unknown) => x as ValidationFinalAnswer;

describe('validate_task_loop with real commands', () => {
  it('`true` completes the task and unlocks its dependent; the transition log records every change', async () => {
    await initOne('true');
    const r = final(await fx.validate.execute({ project: 'Demo App', nodeId: 'a' }));
    expect(r.validation_passed).toBe(true);
    expect(r.result).toMatchObject({ exitCode: 0, signal: null, truncated: false });
    expect(r.node.status).toBe('COMPLETED');
    expect(r.unlocked).toEqual(['b']);
    expect(r.message).toContain('attempt 1/3');
    const ready = await fx.ready.execute({ project: 'demo-app' });
    expect(ready).toEqual({ ready_count: 1, ready_tasks: [{ id: 'b', title: 'B', status: 'READY', priority: 'medium', unblocks: 0 }], revision: r.revision });
    expect(r.revision).toBe((await fx.store.load('demo-app'))!.revision);
    const log = await fx.store.readTransitions('demo-app');
    expect(log.slice(-4).map((t) => `${t.node}:${t.from}->${t.to}@${t.attempt}`)).toEqual([
      'a:READY->IN_PROGRESS@1',
      'a:IN_PROGRESS->VALIDATING@1',
      'a:VALIDATING->COMPLETED@1',
      'b:PENDING->READY@0',
    ]);
    const file = JSON.parse(await fs.readFile(path.join(fx.dataDir, 'projects', 'demo-app', 'task_graph.json'), 'utf8'));
    expect(file.nodes[0].status).toBe('COMPLETED');
  });

  it('runs in projectRoot with the server environment', async () => {
    process.env.WG_TASKS_TEST_VAR = 'from-server-env';
    await initOne('pwd; echo "$WG_TASKS_TEST_VAR"');
    const r = final(await fx.validate.execute({ project: 'demo-app', nodeId: 'a' }));
    delete process.env.WG_TASKS_TEST_VAR;
    expect(r.result!.stdout).toBe(`${fx.projectRoot}\nfrom-server-env\n`);
  });

  it('`false` → RETRYING, then FAILED at max_attempts with error_logs; reset brings it back to READY', async () => {
    await initOne('echo out; echo err >&2; exit 3', { max_attempts: 2 });
    const r1 = final(await fx.validate.execute({ project: 'demo-app', nodeId: 'a' }));
    expect(r1.validation_passed).toBe(false);
    expect(r1.node.status).toBe('RETRYING');
    expect(r1.result).toMatchObject({ exitCode: 3, stdout: 'out\n', stderr: 'err\n' });
    expect(r1.message).toMatch(/attempt 1\/2.*RETRYING.*call validate_task_loop again to start the next attempt/);
    expect(r1).toMatchObject({ attempt: 1, replayed: false });
    await expect(fx.validate.execute({ project: 'demo-app', nodeId: 'b' })).rejects.toThrow(InvalidTransitionError);
    await fx.start.execute({ project: 'demo-app', nodeId: 'a' });
    const r2 = final(await fx.validate.execute({ project: 'demo-app', nodeId: 'a' }));
    expect(r2.node.status).toBe('FAILED');
    expect(r2.message).toMatch(/attempt 2\/2.*FAILED.*reset_task_node/);
    // The answer lists only the current attempt; get_project_graph keeps both.
    expect(r2.node.error_logs).toHaveLength(1);
    expect(r2.node.error_logs[0]).toMatchObject({ attempt: 2, exit_code: 3, signal: null, timed_out: false, stdout_tail: 'out\n', stderr_tail: 'err\n' });
    expect((await fx.graph.execute({ project: 'demo-app' })).nodes[0].error_logs.map((e) => e.attempt)).toEqual([1, 2]);
    await expect(fx.start.execute({ project: 'demo-app', nodeId: 'a' })).rejects.toThrow(/is FAILED.*allowed: reset_task_node/);
    const reset = await fx.reset.execute({ project: 'demo-app', nodeId: 'a' });
    expect(reset.node).toMatchObject({ status: 'READY', current_attempt: 0 });
    expect(reset.node.error_logs).toHaveLength(2);
  });

  it('fail then pass: a fixed problem completes on the next attempt', async () => {
    await initOne('test -f fixed.txt');
    expect(final(await fx.validate.execute({ project: 'demo-app', nodeId: 'a' })).node.status).toBe('RETRYING');
    await fs.writeFile(path.join(fx.projectRoot, 'fixed.txt'), 'ok');
    await fx.start.execute({ project: 'demo-app', nodeId: 'a' });
    const r = final(await fx.validate.execute({ project: 'demo-app', nodeId: 'a' }));
    expect(r.validation_passed).toBe(true);
    expect(r.message).toContain('attempt 2/3');
  });

  it('a missing command is a failed attempt (exit 127), not a crash', async () => {
    await initOne('definitely-not-a-command-wg-4711');
    const r = final(await fx.validate.execute({ project: 'demo-app', nodeId: 'a' }));
    expect(r.validation_passed).toBe(false);
    expect(r.result!.exitCode).toBe(127);
    expect(r.result!.stderr).toMatch(/not found/);
  });

  it('a node without validation_command completes with a note that nothing was run', async () => {
    await initOne(undefined);
    const r = final(await fx.validate.execute({ project: 'demo-app', nodeId: 'a' }));
    expect(r).toMatchObject({ validation_passed: true, result: null, unlocked: ['b'] });
    expect(r.message).toContain('nothing was run');
  });

  it('a timeout kills the whole process tree (grandchild included) and counts as a failed attempt', async () => {
    const pidFile = path.join(fx.base, 'grandchild.pid');
    // The shell starts a grandchild `sleep` in the background, records its pid, then waits on it.
    await initOne(`sleep 300 & echo $! > '${pidFile}'; wait`, { timeout_ms: 700 });
    const r = final(await fx.validate.execute({ project: 'demo-app', nodeId: 'a' }));
    const grandchild = Number((await fs.readFile(pidFile, 'utf8')).trim());
    expect(grandchild).toBeGreaterThan(0);
    expect(await waitUntil(() => !isAlive(grandchild), 5_000)).toBe(true);
    expect(r.validation_passed).toBe(false);
    expect(r.result!.signal).toBe('SIGTERM');
    expect(r.node.status).toBe('RETRYING');
    expect(r.node.error_logs[0]).toMatchObject({ attempt: 1, timed_out: true });
    expect(r.message).toContain('timed out after 700 ms');
  });

  it('huge output is capped at 64 KiB per stream with the tail kept', async () => {
    await initOne(`node -e "for (let i = 0; i < 20000; i++) console.log('line ' + i)"; head -c 100000 /dev/urandom >&2`);
    const r = final(await fx.validate.execute({ project: 'demo-app', nodeId: 'a' }));
    expect(r.result!.truncated).toBe(true);
    expect(Buffer.byteLength(r.result!.stdout)).toBeLessThanOrEqual(64 * 1024);
    expect(r.result!.stdout.endsWith('line 19999\n')).toBe(true);
    expect(r.result!.stdout).not.toContain('line 0\n');
    // Binary garbage on stderr comes back as (lossy) text, never more than the cap in bytes before decoding.
    expect(typeof r.result!.stderr).toBe('string');
    expect(r.result!.stderr.length).toBeGreaterThan(0);
    expect(r.result!.stderr.length).toBeLessThanOrEqual(64 * 1024);
    expect(r.validation_passed).toBe(true);
  });

  it('outliving waitSeconds answers running, and the next call waits for the same run (one run only)', async () => {
    const counter = path.join(fx.base, 'runs.txt');
    await initOne(`echo run >> '${counter}'; echo working; sleep 1.5; echo done`);
    const progress: string[] = [];
    const ctx: CallContext = { signal: new AbortController().signal, progress: (_p, _t, m) => progress.push(m ?? ''), identity: LOCAL_IDENTITY };
    const first = await fx.validate.execute({ project: 'demo-app', nodeId: 'a', waitSeconds: 0.2 }, ctx);
    expect(first).toMatchObject({ validation_passed: null, running: true });
    expect((first as { message: string }).message).toContain('call validate_task_loop again');
    const [second, third] = await Promise.all([
      fx.validate.execute({ project: 'demo-app', nodeId: 'a', waitSeconds: 30 }, ctx),
      fx.validate.execute({ project: 'demo-app', nodeId: 'a', waitSeconds: 30 }),
    ]);
    expect(final(second).validation_passed).toBe(true);
    expect(final(second).result!.stdout).toBe('working\ndone\n');
    expect(third).toEqual(second);
    // After the run ended, a further call on the COMPLETED task is given that run's result again, marked as such.
    const again = final(await fx.validate.execute({ project: 'demo-app', nodeId: 'a' }));
    expect(again).toMatchObject({ validation_passed: true, replayed: true, attempt: 1, result: final(second).result });
    expect(again.message).toMatch(/^result of attempt 1 \(run .*\), given again/);
    expect((await fs.readFile(counter, 'utf8')).trim().split('\n')).toEqual(['run']);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.some((m) => /running \d+s: working/.test(m))).toBe(true);
  });

  it('cancellation kills the command and puts the node back to IN_PROGRESS without using an attempt', async () => {
    const pidFile = path.join(fx.base, 'cancel.pid');
    await initOne(`sleep 300 & echo $! > '${pidFile}'; wait`);
    const ac = new AbortController();
    const call = fx.validate.execute({ project: 'demo-app', nodeId: 'a' }, { signal: ac.signal, progress: () => undefined, identity: LOCAL_IDENTITY });
    expect(await waitUntil(async () => (await fs.stat(pidFile).catch(() => null))?.size! > 0)).toBe(true);
    ac.abort();
    await expect(call).rejects.toThrow(CancelledError);
    const grandchild = Number((await fs.readFile(pidFile, 'utf8')).trim());
    expect(await waitUntil(() => !isAlive(grandchild), 5_000)).toBe(true);
    const node = (await fx.graph.execute({ project: 'demo-app' })).nodes[0];
    expect(node).toMatchObject({ status: 'IN_PROGRESS', current_attempt: 0, error_logs: [] });
    expect(fx.runner.running.size).toBe(0);
  });

  it('reset is refused while the command runs', async () => {
    await initOne('sleep 1');
    const running = fx.validate.execute({ project: 'demo-app', nodeId: 'a', waitSeconds: 0.05 });
    expect(await running).toMatchObject({ running: true });
    await expect(fx.reset.execute({ project: 'demo-app', nodeId: 'a' })).rejects.toThrow(/command is running/);
    expect(final(await fx.validate.execute({ project: 'demo-app', nodeId: 'a' })).validation_passed).toBe(true);
  });

  it('a stale VALIDATING left by a dead server is recovered: validate runs again, reset works', async () => {
    await initOne('true', { timeout_ms: 1000 });
    // Simulate a server that died mid-run: VALIDATING since long ago, no run in this process.
    await fx.store.update('demo-app', (g) => ({
      graph: {
        ...g,
        nodes: g.nodes.map((n) =>
          n.id === 'a' ? { ...n, status: 'VALIDATING' as const, validating_since: new Date(Date.now() - 3_600_000).toISOString(), validation_run_id: 'dead' } : n,
        ),
      },
      value: undefined,
    }));
    const r = final(await fx.validate.execute({ project: 'demo-app', nodeId: 'a' }));
    expect(r.validation_passed).toBe(true);
    expect(r.message).toContain('attempt 1/3');
    const log = await fx.store.readTransitions('demo-app');
    expect(log.slice(-4).map((t) => `${t.from}->${t.to}`)).toEqual([
      'VALIDATING->IN_PROGRESS', 'IN_PROGRESS->VALIDATING', 'VALIDATING->COMPLETED', 'PENDING->READY',
    ]);
  });

  it('a fresh VALIDATING owned by another live process is refused with a clear message', async () => {
    await initOne('true');
    // The owner: this test's parent process, alive on this host, with a lease a minute long.
    const owner = { host: fx.host.host, boot_id: fx.host.bootId, pid: process.ppid, run_id: 'other', expires_at: new Date(Date.now() + 60_000).toISOString() };
    await fx.store.update('demo-app', (g) => ({
      graph: { ...g, nodes: g.nodes.map((n) => (n.id === 'a' ? { ...n, status: 'VALIDATING' as const, validating_since: new Date().toISOString(), validation_run_id: 'other', owner } : n)) },
      value: undefined,
    }));
    await expect(fx.validate.execute({ project: 'demo-app', nodeId: 'a' })).rejects.toThrow(/another server process/);
    await expect(fx.reset.execute({ project: 'demo-app', nodeId: 'a' })).rejects.toThrow(/command is running/);
  });
});
