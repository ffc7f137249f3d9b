import { ContractRun } from './contract-run';
import { AlreadyExistsError, ConflictError, NotFoundError } from '../../src/kernel/errors';
import type { TaskGraphStore } from '../../src/modules/tasks/application/ports/task-graph-store';
import { createTaskGraph } from '../../src/modules/tasks/domain/create-task-graph';
import type { TaskGraph } from '../../src/modules/tasks/domain/task-graph';
import { TaskStatus } from '../../src/modules/tasks/domain/task-status';

/**
 * The contract of the TaskGraphStore port: what every adapter (files, PostgreSQL) must do, run against each of them
 * by its own test file. `make` gives a fresh, empty store; `cleanup` runs after each test.
 */
export function taskGraphStoreContract(name: string, make: () => Promise<{ store: TaskGraphStore; cleanup?: () => Promise<void> }>): ContractRun {
  const run = new ContractRun(`TaskGraphStore contract: ${name}`);
  describe(run.suite, () => {
    const it = run.it;
    let store: TaskGraphStore;
    let cleanup: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      ({ store, cleanup } = await make());
      run.met(store);
    });
    afterEach(async () => cleanup?.());

    const graph = (projectId = 'demo', nodes = [
      { id: 'a', title: 'A' },
      { id: 'b', title: 'B', depends_on: ['a'], validation_command: 'true' },
    ]): TaskGraph => createTaskGraph({ projectId, projectName: `Project ${projectId}`, projectRoot: '/tmp/x', nodes, now: '2026-11-30T10:00:00.000Z' });

    it('derives project ids from names and keeps ids as they are', () => {
      expect(store.projectIdOf('My App_v2')).toBe('my-app-v2');
      expect(store.projectIdOf('my-app-v2')).toBe('my-app-v2');
    });

    it('loads nothing for an unknown project', async () => {
      expect(await store.load('nothing-here')).toBeUndefined();
      expect(await store.readTransitions('nothing-here')).toEqual([]);
    });

    it('stores a new graph at revision 0 and reads it back as written', async () => {
      const g = graph();
      await store.create(g);
      const loaded = await store.load('demo');
      expect(loaded).toEqual({ ...g, revision: 0 });
      expect(Object.keys(loaded!)).toEqual(Object.keys(g)); // field order kept
      expect((await store.readTransitions('demo')).map((t) => [t.node, t.from, t.to, t.attempt])).toEqual([
        ['a', 'READY', 'READY', 0],
        ['b', 'PENDING', 'PENDING', 0],
      ]);
    });

    it('refuses to create over an existing graph unless replace, and lets check refuse a replace', async () => {
      await store.create(graph());
      await expect(store.create(graph())).rejects.toBeInstanceOf(AlreadyExistsError);
      await expect(store.create(graph(), { replace: true, check: () => { throw new ConflictError('no'); } })).rejects.toThrow('no');
      expect((await store.load('demo'))!.revision).toBe(0);
      let seen: TaskGraph | undefined;
      await store.create(graph('demo', [{ id: 'z', title: 'Z' }]), { replace: true, check: (existing) => (seen = existing) });
      expect(seen!.nodes.map((n) => n.id)).toEqual(['a', 'b']);
      const replaced = (await store.load('demo'))!;
      expect(replaced.revision).toBe(1);
      expect(replaced.nodes.map((n) => n.id)).toEqual(['z']);
    });

    it('update is a compare-and-swap: the change sees the current graph, the write bumps the revision and logs transitions', async () => {
      await store.create(graph());
      const value = await store.update('demo', (current) => {
        const nodes = current.nodes.map((n) => (n.id === 'a' ? { ...n, status: TaskStatus.InProgress } : n));
        return { graph: { ...current, nodes }, transitions: [{ node: 'a', from: TaskStatus.Ready, to: TaskStatus.InProgress, time: '2026-11-30T10:01:00.000Z', attempt: 0 }], value: 'started' };
      });
      expect(value).toBe('started');
      const after = (await store.load('demo'))!;
      expect(after.revision).toBe(1);
      expect(after.nodes[0].status).toBe('IN_PROGRESS');
      const log = await store.readTransitions('demo');
      expect(log[log.length - 1]).toEqual({ from: 'READY', to: 'IN_PROGRESS', node: 'a', time: '2026-11-30T10:01:00.000Z', attempt: 0 });
    });

    it('a failed attempt\'s transition keeps its attempt record in the log, and a lease/last_run round-trips', async () => {
      await store.create(graph());
      const record = { attempt: 1, time: '2026-11-30T10:02:00.000Z', exit_code: 2, signal: null, duration_ms: 7, timed_out: false, stdout_tail: 'out', stderr_tail: 'err' };
      const owner = { host: 'h', boot_id: null, pid: 42, run_id: 'r1', expires_at: '2026-11-30T10:03:00.000Z' };
      await store.update('demo', (current) => ({
        graph: { ...current, nodes: current.nodes.map((n) => (n.id === 'a' ? { ...n, status: TaskStatus.Retrying, error_logs: [record], owner } : n)) },
        transitions: [{ node: 'a', from: TaskStatus.Validating, to: TaskStatus.Retrying, time: record.time, attempt: 1, record }],
        value: undefined,
      }));
      const log = await store.readTransitions('demo');
      expect(log[log.length - 1]).toEqual({ from: 'VALIDATING', to: 'RETRYING', node: 'a', time: record.time, attempt: 1, record });
      expect((await store.load('demo'))!.nodes[0]).toMatchObject({ error_logs: [record], owner });
    });

    it('an update that writes nothing, or throws, changes nothing', async () => {
      await store.create(graph());
      expect(await store.update('demo', () => ({ value: 42 }))).toBe(42);
      await expect(store.update('demo', () => { throw new ConflictError('refused'); })).rejects.toThrow('refused');
      expect((await store.load('demo'))!.revision).toBe(0);
      expect(await store.readTransitions('demo')).toHaveLength(2);
    });

    it('update of a project without a graph is not_found', async () => {
      await expect(store.update('ghost', () => ({ value: 1 }))).rejects.toBeInstanceOf(NotFoundError);
    });

    it('concurrent updates never lose one another (20 increments in parallel)', async () => {
      await store.create(graph());
      await Promise.all(
        Array.from({ length: 20 }, () =>
          store.update('demo', (current) => ({ graph: { ...current, project_name: String(Number(current.project_name.replace(/\D/g, '') || 0) + 1) }, value: undefined })),
        ),
      );
      const after = (await store.load('demo'))!;
      expect(after.project_name).toBe('20');
      expect(after.revision).toBe(20);
    });

    it('racing the same transition gives one winner and clear errors for the rest', async () => {
      await store.create(graph());
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) =>
          store.update('demo', (current) => {
            const a = current.nodes.find((n) => n.id === 'a')!;
            if (a.status !== TaskStatus.Ready) throw new ConflictError(`racer ${i}: a is ${a.status}`);
            const nodes = current.nodes.map((n) => (n.id === 'a' ? { ...n, status: TaskStatus.InProgress } : n));
            return { graph: { ...current, nodes }, transitions: [{ node: 'a', from: TaskStatus.Ready, to: TaskStatus.InProgress, time: 't', attempt: 0 }], value: i };
          }),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.filter((r) => r.status === 'rejected').every((r) => (r as PromiseRejectedResult).reason instanceof ConflictError)).toBe(true);
      expect((await store.readTransitions('demo')).filter((t) => t.to === 'IN_PROGRESS')).toHaveLength(1);
    });

    it('keeps projects apart', async () => {
      await store.create(graph('one'));
      await store.create(graph('two', [{ id: 'x', title: 'X' }]));
      expect((await store.load('one'))!.nodes).toHaveLength(2);
      expect((await store.load('two'))!.nodes).toHaveLength(1);
      expect(await store.readTransitions('two')).toHaveLength(1);
    });
  });
  return run;
}

/** The import/export part of the contract: a project copied in exactly, idempotently. */
export function taskGraphStoreImportContract(name: string, make: () => Promise<{ store: TaskGraphStore; cleanup?: () => Promise<void> }>): ContractRun {
  const run = new ContractRun(`TaskGraphStore import contract: ${name}`);
  describe(run.suite, () => {
    const it = run.it;
    let store: TaskGraphStore;
    let cleanup: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      ({ store, cleanup } = await make());
      run.met(store);
    });
    afterEach(async () => cleanup?.());
    const graph = (rev: number, updated = '2026-01-02T03:04:05.678Z'): TaskGraph => ({
      ...createTaskGraph({ projectId: 'copied', projectName: 'Copied', projectRoot: '/r', nodes: [{ id: 'a', title: 'A' }], now: '2026-01-01T00:00:00.000Z' }),
      revision: rev,
      updated_at: updated,
    });
    const log = [
      { node: 'a', from: TaskStatus.Ready, to: TaskStatus.Ready, time: '2026-01-01T00:00:00.000Z', attempt: 0 },
      { node: 'a', from: TaskStatus.Ready, to: TaskStatus.InProgress, time: '2026-01-01T00:00:01.123Z', attempt: 0 },
    ];

    it('copies a project exactly (revision, times, the whole log), lists it, and a second import copies nothing', async () => {
      expect(await store.listProjects()).toEqual([]);
      expect(await store.importProject(graph(7), log)).toBe('imported');
      expect(await store.load('copied')).toEqual(graph(7));
      expect(await store.readTransitions('copied')).toEqual(log);
      expect(await store.importProject(graph(7), log)).toBe('unchanged');
      expect(await store.readTransitions('copied')).toHaveLength(2);
      expect(await store.listProjects()).toEqual(['copied']);
    });

    it('keeps a different existing project unless replace', async () => {
      await store.importProject(graph(7), log);
      expect(await store.importProject(graph(9, '2026-02-02T00:00:00.000Z'), log.slice(0, 1))).toBe('skipped');
      expect((await store.load('copied'))!.revision).toBe(7);
      expect(await store.importProject(graph(9, '2026-02-02T00:00:00.000Z'), log.slice(0, 1), { replace: true })).toBe('imported');
      expect((await store.load('copied'))!.revision).toBe(9);
      expect(await store.readTransitions('copied')).toEqual(log.slice(0, 1));
    });
  });
  return run;
}
