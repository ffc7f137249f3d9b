/**
 * The log behind the views' app-only resource_changes tool (src/server/resource-changes.ts): the time of the last
 * change to each resource as the stores publish it, told only within the caller's reach; in a file data dir a watch
 * per resource asked about, ended when nobody asked for a lease; bad URIs named; a bounded number of watches.
 */
import { InProcessChangeEvents, type ChangeEvents, type ChangeTarget } from '../../../src/kernel/change-events';
import type { ChangeReacher } from '../../../src/kernel/change-reach';
import { LOCAL_IDENTITY, type Identity } from '../../../src/kernel/identity';
import { WorkgraphError } from '../../../src/kernel/errors';
import { LEASE_MS, MAX_LEASES, ResourceChangeLog } from '../../../src/server/resource-changes';

const MODULES = ['workflow', 'tasks', 'knowledge'];
const TASKS = 'workgraph://projects/parser/tasks';
const SESSION = 'workgraph://sessions/0123456789abcdef';
const none = () => [] as ChangeReacher[];

/** An in-process port that also counts the watches of other processes' changes it was asked for. */
function watchingPort(): ChangeEvents & { watching: Map<string, number> } {
  const inner = new InProcessChangeEvents();
  const watching = new Map<string, number>();
  return {
    watching,
    publish: (e) => inner.publish(e),
    subscribe: (l) => inner.subscribe(l),
    watch: (t: ChangeTarget) => {
      const key = `${t.kind}:${t.id}`;
      watching.set(key, (watching.get(key) ?? 0) + 1);
      return () => watching.set(key, watching.get(key)! - 1);
    },
  };
}

let clock = Date.parse('2026-12-02T05:00:00.000Z');
const now = () => clock;
const iso = (ms: number) => new Date(ms).toISOString();

beforeEach(() => {
  clock = Date.parse('2026-12-02T05:00:00.000Z');
  jest.useFakeTimers({ doNotFake: ['Date'] });
});
afterEach(() => jest.useRealTimers());

test('a change the stores publish is told as its time; an unchanged resource is null; heardSince is when hearing began', async () => {
  const events = new InProcessChangeEvents();
  const log = new ResourceChangeLog(events, now);
  const start = clock;
  let a = await log.changes([TASKS, SESSION], MODULES, LOCAL_IDENTITY, none);
  expect(a).toEqual({ now: iso(start), resources: [{ uri: TASKS, changedAt: null, heardSince: iso(start) }, { uri: SESSION, changedAt: null, heardSince: iso(start) }] });
  clock += 1_000;
  events.publish({ kind: 'tasks', project: 'parser', id: 'parser', at: iso(clock) });
  // Another project's change is not this resource's.
  events.publish({ kind: 'tasks', project: 'other', id: 'other', at: iso(clock + 5) });
  clock += 1_000;
  a = await log.changes([TASKS, SESSION], MODULES, LOCAL_IDENTITY, none);
  expect(a.resources).toEqual([{ uri: TASKS, changedAt: iso(clock - 1_000), heardSince: iso(start) }, { uri: SESSION, changedAt: null, heardSince: iso(start) }]);
  // A change heard late with an older time (another host's clock) never moves the time back.
  events.publish({ kind: 'tasks', project: 'parser', id: 'parser', at: iso(start) });
  expect((await log.changes([TASKS], MODULES, LOCAL_IDENTITY, none)).resources[0].changedAt).toBe(iso(clock - 1_000));
});

test('a knowledge change is told for the project resource and its node resources', async () => {
  const events = new InProcessChangeEvents();
  const log = new ResourceChangeLog(events, now);
  events.publish({ kind: 'knowledge', project: 'kb', id: 'kb', at: iso(clock) });
  const a = await log.changes(['workgraph://knowledge/kb', 'workgraph://knowledge/kb/nodes/n1', 'workgraph://knowledge/other'], MODULES, LOCAL_IDENTITY, none);
  expect(a.resources.map((r) => r.changedAt)).toEqual([iso(clock), iso(clock), null]);
});

test('a change out of the caller\'s reach is not told (null), one within it is', async () => {
  const events = new InProcessChangeEvents();
  const log = new ResourceChangeLog(events, now);
  events.publish({ kind: 'tasks', project: 'parser', id: 'parser', at: iso(clock) });
  const confined: Identity = { name: 'alice', scopes: ['read'], roots: ['/work/alice'] };
  const reaches = (yes: boolean): ChangeReacher[] => [{ kind: 'tasks', inReach: async () => yes }];
  expect((await log.changes([TASKS], MODULES, confined, () => reaches(false))).resources[0].changedAt).toBeNull();
  expect((await log.changes([TASKS], MODULES, confined, () => reaches(true))).resources[0].changedAt).toBe(iso(clock));
  // Without a reacher for the kind, only an identity that reaches everything hears.
  expect((await log.changes([TASKS], MODULES, confined, none)).resources[0].changedAt).toBeNull();
});

test('a URI that is no resource of the modules served is refused naming its place in the list', async () => {
  const log = new ResourceChangeLog(new InProcessChangeEvents(), now);
  const refusal = await log.changes([TASKS, 'ui://workgraph/task-dag'], MODULES, LOCAL_IDENTITY, none).catch((e: WorkgraphError) => e);
  expect(refusal).toBeInstanceOf(WorkgraphError);
  expect((refusal as WorkgraphError).code).toBe('invalid_arguments');
  expect((refusal as WorkgraphError).message).toMatch(/^resources\/1: "ui:\/\/workgraph\/task-dag" is not a resource this server serves; expected workgraph:\/\/sessions\/<id>/);
  // A module not served: its resources are not watchable either.
  await expect(log.changes([SESSION], ['tasks'], LOCAL_IDENTITY, none)).rejects.toThrow(/resources\/0/);
});

test('file data dir: each resource asked about is watched while views keep asking, and the watch ends a lease after the last ask', async () => {
  const events = watchingPort();
  const log = new ResourceChangeLog(events, now);
  const first = await log.changes([TASKS], MODULES, LOCAL_IDENTITY, none);
  expect(events.watching.get('tasks:parser')).toBe(1);
  // Renewed by each ask: still one watch, heard since the first ask.
  clock += LEASE_MS / 2;
  jest.advanceTimersByTime(LEASE_MS / 2);
  const again = await log.changes([TASKS], MODULES, LOCAL_IDENTITY, none);
  expect(events.watching.get('tasks:parser')).toBe(1);
  expect(again.resources[0].heardSince).toBe(first.resources[0].heardSince);
  // Nobody asks for a lease: the watch ends.
  clock += LEASE_MS + 1;
  jest.advanceTimersByTime(LEASE_MS);
  expect(events.watching.get('tasks:parser')).toBe(0);
  expect(log.watched).toBe(0);
  // Asked again: watched anew, heard only since now — later than the last answer, so a view knows it may have missed one.
  const later = await log.changes([TASKS], MODULES, LOCAL_IDENTITY, none);
  expect(events.watching.get('tasks:parser')).toBe(1);
  expect(later.resources[0].heardSince > again.now).toBe(true);
});

test('file data dir: a change before the watch began is not told (it may be half heard); one after it is', async () => {
  const events = watchingPort();
  const log = new ResourceChangeLog(events, now);
  events.publish({ kind: 'tasks', project: 'parser', id: 'parser', at: iso(clock - 10) });
  expect((await log.changes([TASKS], MODULES, LOCAL_IDENTITY, none)).resources[0].changedAt).toBeNull();
  clock += 5;
  events.publish({ kind: 'tasks', project: 'parser', id: 'parser', at: iso(clock) });
  expect((await log.changes([TASKS], MODULES, LOCAL_IDENTITY, none)).resources[0].changedAt).toBe(iso(clock));
});

test(`at most ${MAX_LEASES} resources are watched at once; beyond that the call is refused as a resource limit`, async () => {
  const events = watchingPort();
  const log = new ResourceChangeLog(events, now);
  for (let i = 0; i < MAX_LEASES; i += 20) {
    await log.changes(Array.from({ length: 20 }, (_, j) => `workgraph://projects/p${i + j}/tasks`), MODULES, LOCAL_IDENTITY, none);
  }
  expect(log.watched).toBe(MAX_LEASES);
  const refusal = await log.changes([TASKS], MODULES, LOCAL_IDENTITY, none).catch((e: WorkgraphError) => e);
  expect((refusal as WorkgraphError).code).toBe('resource_limit');
  // One already watched is still answered.
  await expect(log.changes(['workgraph://projects/p0/tasks'], MODULES, LOCAL_IDENTITY, none)).resolves.toMatchObject({ resources: [{ changedAt: null }] });
});

test('file data dir: only a resource the caller reaches is watched, its reach asked once per identity while watched', async () => {
  const events = watchingPort();
  const log = new ResourceChangeLog(events, now);
  const alice: Identity = { name: 'alice', scopes: ['read'], roots: ['/work/alice'] };
  const bob: Identity = { name: 'bob', scopes: ['read'], roots: ['/work/bob'] };
  const asked: string[] = [];
  const reachers = (): ChangeReacher[] => [{ kind: 'tasks', inReach: async (_t, ctx) => (asked.push(ctx.identity.name), ctx.identity.name === 'alice') }];
  // Bob names a resource he cannot see (or one that does not exist): nothing is watched, nothing told.
  const b = await log.changes([TASKS], MODULES, bob, reachers);
  expect(events.watching.get('tasks:parser')).toBeUndefined();
  expect(b.resources[0]).toEqual({ uri: TASKS, changedAt: null, heardSince: b.now });
  // Alice reaches it: watched; her next asks renew the watch without asking her reach again.
  await log.changes([TASKS], MODULES, alice, reachers);
  clock += 1_000;
  await log.changes([TASKS], MODULES, alice, reachers);
  expect(events.watching.get('tasks:parser')).toBe(1);
  expect(asked).toEqual(['bob', 'alice']);
  // Bob again while Alice's watch runs: asked again, still told nothing, not even since when it is watched.
  events.publish({ kind: 'tasks', project: 'parser', id: 'parser', at: iso(clock) });
  clock += 1_000;
  const b2 = await log.changes([TASKS], MODULES, bob, reachers);
  expect(b2.resources[0]).toEqual({ uri: TASKS, changedAt: null, heardSince: b2.now });
  expect(asked.filter((n) => n === 'bob')).toHaveLength(2);
});
