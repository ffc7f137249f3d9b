import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ContractRun } from './contract-run';
import { systemTimers, type Clock } from '../../src/kernel/clock';
import { silentLogger } from '../../src/kernel/logger';
import { RandomIdGenerator } from '../../src/kernel/random-id-generator';
import type { TaskGraphStore } from '../../src/modules/tasks/application/ports/task-graph-store';
import { ValidationRunRegistry } from '../../src/modules/tasks/application/services/validation-run-registry';
import { ValidationRunService, type RunVerdict } from '../../src/modules/tasks/application/services/validation-run';
import { LocalHostInfo } from '../../src/modules/tasks/infrastructure/process/host-info';
import { ShellCommandRunner } from '../../src/modules/tasks/infrastructure/process/shell-command-runner';
import { RootsPathPolicy } from '../integration/tasks/task-fixture';
import { taskUseCases } from '../helpers/task-use-cases';
import { noopCallContext } from '../../src/kernel/call-context';
import { LOCAL_IDENTITY } from '../../src/kernel/identity';

/** A clock the test moves by hand (claims lapse without waiting). */
export class FakeClock implements Clock {
  constructor(public ms = Date.parse('2026-12-01T10:00:00.000Z')) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

const TTL = 60_000;

/** Every task tool over one store, with a fake clock and a 60 s claim TTL. */
export function livingPlanFixture(store: TaskGraphStore, clock = new FakeClock()) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-plan-'));
  const host = new LocalHostInfo();
  const runner = new ShellCommandRunner();
  const service = new ValidationRunService(
    { store, runner, runs: new ValidationRunRegistry<RunVerdict>(), clock, timers: systemTimers, ids: new RandomIdGenerator(), host, logger: silentLogger },
    { claimTtlMs: TTL },
  );
  const uc = taskUseCases({ store, clock, service, policy: new RootsPathPolicy([root]), host: host.host, claimTtlMs: TTL });
  return { ...uc, store, clock, root, host: host.host, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/** A call context whose identity is `name` (what the transport's authentication sets). */
export const as = (name: string) => noopCallContext(undefined, { ...LOCAL_IDENTITY, name });

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return `${(e as { code?: string }).code}: ${(e as Error).message}`;
  }
  return 'resolved';
}

/**
 * The living plan's contract: every plan tool (add, update, remove, split, claims, revisions, history) run through
 * the real use cases against each TaskGraphStore adapter.
 */
export function livingPlanContract(name: string, make: () => Promise<{ store: TaskGraphStore; cleanup?: () => Promise<void> }>): ContractRun {
  const run = new ContractRun(`living plan contract: ${name}`);
  describe(run.suite, () => {
    const it = run.it;
    let fx: ReturnType<typeof livingPlanFixture>;
    let cleanup: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      const made = await make();
      cleanup = made.cleanup;
      run.met(made.store);
      fx = livingPlanFixture(made.store);
    });
    afterEach(async () => {
      fx.cleanup();
      await cleanup?.();
    });
    const init = (nodes: object[]) => fx.init.execute({ projectName: 'plan', projectRoot: fx.root, nodes } as never);
    const status = async () => Object.fromEntries((await fx.graph.execute({ project: 'plan' })).nodes.map((n) => [n.id, n.status]));
    const complete = async (id: string, agent = 'a1') => {
      await fx.start.execute({ project: 'plan', nodeId: id, agent });
      await fx.validate.execute({ project: 'plan', nodeId: id, agent });
    };

    it('add_tasks: new tasks on existing or new ones, READY or PENDING; unknown dependencies and cycles refused, named', async () => {
      const created = await init([{ id: 'a', title: 'A' }]);
      expect(created.revision).toBe(0);
      await complete('a');
      const before = (await fx.graph.execute({ project: 'plan' })).revision;
      const added = await fx.add.execute({ project: 'plan', nodes: [{ id: 'b', title: 'B', depends_on: ['a'] }, { id: 'c', title: 'C', depends_on: ['b'] }] });
      expect(added.nodes.map((n) => [n.id, n.status])).toEqual([['b', 'READY'], ['c', 'PENDING']]);
      expect(added.revision).toBe(before + 1);
      expect(await code(fx.add.execute({ project: 'plan', nodes: [{ id: 'd', title: 'D', depends_on: ['ghost'] }] }))).toMatch(/^invalid_arguments: .*unknown task 'ghost'/);
      expect(await code(fx.add.execute({ project: 'plan', nodes: [{ id: 'x', title: 'X', depends_on: ['y'] }, { id: 'y', title: 'Y', depends_on: ['x'] }] }))).toMatch(/^cycle_detected: dependency cycle: (x -> y -> x|y -> x -> y)/);
      expect(await code(fx.add.execute({ project: 'plan', nodes: [{ id: 'a', title: 'again' }] }))).toMatch(/^invalid_arguments: .*'a' already exists/);
      expect((await fx.graph.execute({ project: 'plan' })).revision).toBe(before + 1);
    });

    it('update_task: has_progress on a dependency change of a started task; a cycle named; other edits keep the status', async () => {
      await init([{ id: 'a', title: 'A' }, { id: 'b', title: 'B' }, { id: 'c', title: 'C', depends_on: ['b'] }]);
      await fx.start.execute({ project: 'plan', nodeId: 'a', agent: 'a1' });
      expect(await code(fx.update.execute({ project: 'plan', nodeId: 'a', agent: 'a1', depends_on: ['b'] }))).toMatch(/^has_progress: task 'a' is IN_PROGRESS/);
      const edited = await fx.update.execute({ project: 'plan', nodeId: 'a', agent: 'a1', title: 'A2', priority: 'high', tags: ['x'], metadata: { issue: 'https://e/1' } });
      expect(edited.nodes[0]).toMatchObject({ id: 'a', title: 'A2', status: 'IN_PROGRESS', priority: 'high', tags: ['x'], metadata: { issue: 'https://e/1' } });
      expect(await code(fx.update.execute({ project: 'plan', nodeId: 'b', depends_on: ['c'] }))).toMatch(/^cycle_detected: dependency cycle: .*b.*c/);
      const pending = await fx.update.execute({ project: 'plan', nodeId: 'b', depends_on: ['a'] });
      expect(pending.nodes[0].status).toBe('PENDING');
    });

    it('update_task on a COMPLETED task: a new command sends it and what follows back, as reset does, and says so', async () => {
      await init([{ id: 'a', title: 'A' }, { id: 'b', title: 'B', depends_on: ['a'] }, { id: 'c', title: 'C', depends_on: ['b'] }]);
      await complete('a');
      await complete('b');
      const r = await fx.update.execute({ project: 'plan', nodeId: 'a', validation_command: 'true' });
      expect(r.nodes[0]).toMatchObject({ id: 'a', status: 'READY', current_attempt: 0 });
      expect(r.cascaded).toEqual([{ id: 'b', status: 'PENDING' }, { id: 'c', status: 'PENDING' }]);
      expect(r.message).toMatch(/sent back: b \(PENDING\), c \(PENDING\)/);
      expect(await status()).toEqual({ a: 'READY', b: 'PENDING', c: 'PENDING' });
      // A title edit keeps a COMPLETED task COMPLETED.
      await complete('a');
      expect((await fx.update.execute({ project: 'plan', nodeId: 'a', title: 'renamed' })).nodes[0].status).toBe('COMPLETED');
      // Work under way downstream refuses the send-back, naming it.
      await fx.start.execute({ project: 'plan', nodeId: 'b', agent: 'a1' });
      expect(await code(fx.update.execute({ project: 'plan', nodeId: 'a', validation_command: 'false' }))).toMatch(/^has_dependents: .*b \(IN_PROGRESS\)/);
    });

    it('remove_tasks: has_dependents naming them unless removed or re-pointed in the same call', async () => {
      await init([{ id: 'a', title: 'A' }, { id: 'b', title: 'B', depends_on: ['a'] }, { id: 'c', title: 'C', depends_on: ['b'] }, { id: 'd', title: 'D' }]);
      expect(await code(fx.remove.execute({ project: 'plan', nodeIds: ['a'] }))).toMatch(/^has_dependents: .*b \(depends on a\)/);
      const r = await fx.remove.execute({ project: 'plan', nodeIds: ['a', 'b'], repoint: { c: ['d'] } });
      expect(r.removed).toEqual(['a', 'b']);
      expect(await status()).toEqual({ c: 'PENDING', d: 'READY' });
      await complete('d');
      expect(await status()).toEqual({ c: 'READY', d: 'COMPLETED' });
    });

    it('split_task: dependents re-pointed to the new leaves, the old dependencies inherited, history kept on the first', async () => {
      await init([{ id: 'a', title: 'A' }, { id: 'b', title: 'B', depends_on: ['a'] }, { id: 'c', title: 'C', depends_on: ['b'] }]);
      await complete('a');
      const r = await fx.split.execute({ project: 'plan', nodeId: 'b', into: [{ id: 'b1', title: 'B1' }, { id: 'b2', title: 'B2', depends_on: ['b1'] }, { id: 'b3', title: 'B3' }] });
      expect(r.removed).toEqual(['b']);
      const g = await fx.graph.execute({ project: 'plan' });
      const byId = Object.fromEntries(g.nodes.map((n) => [n.id, n]));
      expect(g.nodes.map((n) => n.id)).toEqual(['a', 'b1', 'b2', 'b3', 'c']);
      expect(byId.b1).toMatchObject({ depends_on: ['a'], status: 'READY', split_from: 'b' });
      expect(byId.b2).toMatchObject({ depends_on: ['b1'], status: 'PENDING' });
      expect(byId.b3).toMatchObject({ depends_on: ['a'], status: 'READY' });
      expect(byId.c.depends_on).toEqual(['b2', 'b3']);
      const details = await fx.details.execute({ project: 'plan', nodeId: 'b1' });
      expect(details.transitions.some((t) => t.node === 'b')).toBe(true);
      expect(details.history.map((h) => h.action)).toContain('split_task');
      await fx.start.execute({ project: 'plan', nodeId: 'b1' });
      expect(await code(fx.split.execute({ project: 'plan', nodeId: 'b1', into: [{ id: 'p', title: 'P' }, { id: 'q', title: 'Q' }] }))).toMatch(/^has_progress: task 'b1' is IN_PROGRESS/);
    });

    it('compare-and-set: two edits with the same expectedRevision, one wins, the other is conflict naming the current revision', async () => {
      const { revision } = await init([{ id: 'a', title: 'A' }]);
      const results = await Promise.allSettled([
        fx.update.execute({ project: 'plan', nodeId: 'a', title: 'one', expectedRevision: revision }),
        fx.update.execute({ project: 'plan', nodeId: 'a', title: 'two', expectedRevision: revision }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const lost = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(lost.reason.code).toBe('conflict');
      expect(lost.reason.message).toMatch(/is at revision 1, not the expected 0/);
      const after = await fx.graph.execute({ project: 'plan' });
      expect(after.revision).toBe(1);
      // Without expectedRevision the change applies to the latest.
      expect((await fx.update.execute({ project: 'plan', nodeId: 'a', title: 'three' })).revision).toBe(2);
    });

    it('history: every change with actor, time and a one-line reason; get_project_graph the recent ones, get_task_details a task\'s', async () => {
      await fx.init.execute({ projectName: 'plan', projectRoot: fx.root, nodes: [{ id: 'a', title: 'A' }], agent: 'planner' }, as('alice'));
      await fx.add.execute({ project: 'plan', nodes: [{ id: 'b', title: 'B' }], reason: 'the test showed a missing step\nsecond line' }, as('bob'));
      const g = await fx.graph.execute({ project: 'plan' });
      expect(g.history.map((h) => [h.revision, h.action, h.actor.identity, h.reason])).toEqual([
        [0, 'init_project_graph', 'alice', 'created the plan with 1 task(s)'],
        [1, 'add_tasks', 'bob', 'the test showed a missing step second line'],
      ]);
      expect(g.history[0].actor).toEqual({ identity: 'alice', agent: 'planner', host: fx.host });
      expect(g.history[1].time).toBe(new Date(fx.clock.ms).toISOString());
      expect((await fx.details.execute({ project: 'plan', nodeId: 'b' })).history.map((h) => h.action)).toEqual(['add_tasks']);
    });

    it('claims: the starter holds it; others refused naming the claimant and the lapse; renewal, lapse back to READY, release', async () => {
      await init([{ id: 'a', title: 'A', validation_command: 'false', max_attempts: 5 }, { id: 'b', title: 'B' }]);
      const started = await fx.start.execute({ project: 'plan', nodeId: 'a', agent: 'one' }, as('alice'));
      expect(started.node.claim).toMatchObject({ identity: 'alice', agent: 'one', host: fx.host, expires_at: new Date(fx.clock.ms + TTL).toISOString() });
      const refused = await code(fx.validate.execute({ project: 'plan', nodeId: 'a', agent: 'two' }, as('bob')));
      expect(refused).toMatch(/^claimed: task 'a' is claimed by alice \(agent one\) on host .*the claim lapses at 2026-12-01T10:01:00.000Z/);
      expect(await code(fx.update.execute({ project: 'plan', nodeId: 'a', title: 'x' }, as('bob')))).toMatch(/^claimed: /);
      expect(await code(fx.release.execute({ project: 'plan', nodeId: 'a' }, as('bob')))).toMatch(/^claimed: /);
      // Renewed by the claimant's own call on the task.
      fx.clock.advance(40_000);
      await fx.update.execute({ project: 'plan', nodeId: 'a', agent: 'one', description: 'renew' }, as('alice'));
      fx.clock.advance(40_000);
      expect((await fx.ready.execute({ project: 'plan' })).ready_tasks.map((t) => t.id)).toEqual(['b']);
      // A failed attempt keeps the claimant's claim (RETRYING), then it lapses: attempts kept, logged.
      const failed = await fx.validate.execute({ project: 'plan', nodeId: 'a', agent: 'one' }, as('alice'));
      expect(failed.validation_passed).toBe(false);
      fx.clock.advance(TTL + 1);
      const ready = await fx.ready.execute({ project: 'plan' });
      expect(ready.ready_tasks.find((t) => t.id === 'a')).toMatchObject({ status: 'RETRYING' });
      expect(ready.ready_tasks.find((t) => t.id === 'a')!.claim).toBeUndefined();
      const bob = await fx.start.execute({ project: 'plan', nodeId: 'a', agent: 'two' }, as('bob'));
      expect(bob.node).toMatchObject({ status: 'IN_PROGRESS', current_attempt: 1 });
      fx.clock.advance(TTL + 1);
      const g = await fx.graph.execute({ project: 'plan' });
      expect(g.nodes[0]).toMatchObject({ id: 'a', status: 'READY', current_attempt: 1 });
      expect(g.history.filter((h) => h.action === 'claim_lapsed').length).toBe(2);
      // Release gives it up at once.
      await fx.start.execute({ project: 'plan', nodeId: 'b', agent: 'two' }, as('bob'));
      const released = await fx.release.execute({ project: 'plan', nodeId: 'b', agent: 'two' }, as('bob'));
      expect(released.node).toMatchObject({ status: 'READY' });
      expect(released.node.claim).toBeUndefined();
    });

    it('actors: every transition keeps who made it (identity and MCP client name), get_task_details and the history show them', async () => {
      const by = (name: string, client?: string) => ({ ...as(name), ...(client ? { client } : {}) });
      await fx.init.execute({ projectName: 'plan', projectRoot: fx.root, nodes: [
        { id: 'a', title: 'A', validation_command: 'false', max_attempts: 2 },
        { id: 'b', title: 'B' },
        { id: 'c', title: 'C', depends_on: ['b'] },
      ] } as never, by('alice', 'planner-app'));
      await fx.start.execute({ project: 'plan', nodeId: 'a', agent: 'one' }, by('bob', 'claude-code'));
      await fx.validate.execute({ project: 'plan', nodeId: 'a', agent: 'one' }, by('bob', 'claude-code'));
      await fx.validate.execute({ project: 'plan', nodeId: 'a', agent: 'one' }, by('bob', 'claude-code'));
      await fx.reset.execute({ project: 'plan', nodeId: 'a' }, by('carol'));
      const claimed = await fx.claimNext.execute({ project: 'plan', agent: 'two' }, by('dave', 'cursor'));
      await fx.release.execute({ project: 'plan', nodeId: claimed.node!.id, agent: 'two' }, by('dave', 'cursor'));
      await fx.start.execute({ project: 'plan', nodeId: 'b' }, by('erin'));
      await fx.validate.execute({ project: 'plan', nodeId: 'b' }, by('erin'));
      await fx.start.execute({ project: 'plan', nodeId: 'c' }, by('frank', 'zed'));
      fx.clock.advance(TTL + 1);
      await fx.graph.execute({ project: 'plan' }, by('gina', 'dashboard'));

      const seen = async (id: string) => (await fx.details.execute({ project: 'plan', nodeId: id })).transitions.map((t) => [t.from, t.to, t.actor]);
      const alice = { name: 'alice', client: 'planner-app' };
      const bob = { name: 'bob', client: 'claude-code' };
      const dave = { name: 'dave', client: 'cursor' };
      const aClaimed = claimed.node!.id === 'a';
      expect(await seen('a')).toEqual([
        ['READY', 'READY', alice],
        ['READY', 'IN_PROGRESS', bob],
        ['IN_PROGRESS', 'VALIDATING', bob],
        ['VALIDATING', 'RETRYING', bob],
        ['RETRYING', 'IN_PROGRESS', bob],
        ['IN_PROGRESS', 'VALIDATING', bob],
        ['VALIDATING', 'FAILED', bob],
        ['FAILED', 'READY', { name: 'carol' }],
        ...(aClaimed ? [['READY', 'IN_PROGRESS', dave], ['IN_PROGRESS', 'READY', dave]] : []),
      ]);
      expect(await seen('b')).toEqual([
        ['READY', 'READY', alice],
        ...(aClaimed ? [] : [['READY', 'IN_PROGRESS', dave], ['IN_PROGRESS', 'READY', dave]]),
        ['READY', 'IN_PROGRESS', { name: 'erin' }],
        ['IN_PROGRESS', 'VALIDATING', { name: 'erin' }],
        ['VALIDATING', 'COMPLETED', { name: 'erin' }],
      ]);
      // c: unlocked by erin's verdict, started by frank, its lapsed claim put back by gina's read.
      expect(await seen('c')).toEqual([
        ['PENDING', 'PENDING', alice],
        ['PENDING', 'READY', { name: 'erin' }],
        ['READY', 'IN_PROGRESS', { name: 'frank', client: 'zed' }],
        ['IN_PROGRESS', 'READY', { name: 'gina', client: 'dashboard' }],
      ]);
      // The store's own log, read back (a new read, not the answer of the call that wrote it).
      expect((await fx.store.readTransitions('plan', { nodes: ['c'] })).map((t) => t.actor?.name)).toEqual(['alice', 'erin', 'frank', 'gina']);
      const history = (await fx.details.execute({ project: 'plan', nodeId: 'a' })).history;
      expect((await fx.graph.execute({ project: 'plan' })).history[0].actor).toEqual({ identity: 'alice', agent: null, host: fx.host, client: 'planner-app' });
      expect(history.find((h) => h.action === 'validate_task_loop')!.actor).toEqual({ identity: 'bob', agent: 'one', host: fx.host, client: 'claude-code' });
    });

    it('claim_next_task: priority first, then how many tasks each unblocks; filters; nothing ready says what blocks', async () => {
      await init([
        { id: 'low', title: 'L', priority: 'low' },
        { id: 'leaf', title: 'leaf' },
        { id: 'hub', title: 'hub', tags: ['api'] },
        { id: 'd1', title: 'd1', depends_on: ['hub'] },
        { id: 'd2', title: 'd2', depends_on: ['d1'] },
        { id: 'urgent', title: 'U', priority: 'high', metadata: { ticket: 'T-1' } },
      ]);
      expect((await fx.ready.execute({ project: 'plan' })).ready_tasks.map((t) => [t.id, t.unblocks])).toEqual([['urgent', 0], ['hub', 2], ['leaf', 0], ['low', 0]]);
      expect((await fx.ready.execute({ project: 'plan', tags: ['api'] })).ready_tasks.map((t) => t.id)).toEqual(['hub']);
      expect((await fx.ready.execute({ project: 'plan', metadata: { ticket: 'T-1' } })).ready_tasks.map((t) => t.id)).toEqual(['urgent']);
      const first = await fx.claimNext.execute({ project: 'plan', agent: 'x' });
      expect(first).toMatchObject({ claimed: true, node: { id: 'urgent', status: 'IN_PROGRESS' } });
      expect((await fx.claimNext.execute({ project: 'plan', agent: 'y', tags: ['api'] })).node!.id).toBe('hub');
      await fx.claimNext.execute({ project: 'plan', agent: 'x' });
      await fx.claimNext.execute({ project: 'plan', agent: 'x' });
      const none = await fx.claimNext.execute({ project: 'plan', agent: 'z' });
      expect(none.claimed).toBe(false);
      expect(none.message).toMatch(/nothing is ready/);
      expect(none.blocked!.find((b) => b.id === 'd1')).toMatchObject({ status: 'PENDING', waiting_for: ['hub'] });
      expect(none.blocked!.find((b) => b.id === 'hub')!.reason).toMatch(/claimed by local \(agent y\)/);
    });
  });
  return run;
}
