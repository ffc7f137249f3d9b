import type { SessionStore } from '../../../src/modules/workflow/application/ports/session-store';
import type { SessionEvent, SessionStartedEvent } from '../../../src/modules/workflow/domain/sessions';

/** What an adapter's test hands the contract: a fresh, empty store and how to dispose of it. */
export interface ContractStore {
  store: SessionStore;
  cleanup(): Promise<void> | void;
}

let counter = 0;
const newId = () => (Date.now().toString(16) + (counter++).toString(16).padStart(4, '0')).padStart(16, '0').slice(-16);
const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();

function started(id = newId(), fields: Partial<SessionStartedEvent> = {}): SessionStartedEvent {
  return {
    kind: 'session_started', at: at(0), sessionId: id, workflowId: 'wf', workflowVersion: '1', workflowHash: 'abc',
    context: { x: 1 }, next: { completionId: 'a', stepId: 'a', title: 'A' }, ...fields,
  };
}
const advance = (from: number, node: number, next: string | null): SessionEvent => ({
  kind: 'step_completed', at: at(node), from, node, completionId: `s${node}`, title: `S${node}`, outputHash: `h${node}`,
  notesMarkdown: `did ${node}`, next: next ? { completionId: next, stepId: next, title: next } : null,
});

/**
 * The contract every SessionStore adapter keeps (files today, PostgreSQL later): run it from the adapter's test with
 * a factory of fresh stores.
 */
export function sessionStoreContract(name: string, makeStore: () => Promise<ContractStore>): void {
  describe(`SessionStore contract: ${name}`, () => {
    let c: ContractStore;
    beforeEach(async () => (c = await makeStore()));
    afterEach(async () => c.cleanup());

    it('creates a session, loads it, and keeps the pinned workflow text byte for byte', async () => {
      const first = started();
      const created = await c.store.create(first, '{"id":"wf","é":"ü"}');
      expect(created.sessionId).toBe(first.sessionId);
      const loaded = await c.store.load(first.sessionId);
      expect(loaded).toEqual(created);
      expect(loaded.head).toMatchObject({ node: 0, context: { x: 1 } });
      expect(await c.store.pinnedWorkflow(first.sessionId)).toBe('{"id":"wf","é":"ü"}');
    });

    it('refuses a second session with the same id', async () => {
      const first = started();
      await c.store.create(first, '{}');
      await expect(c.store.create(first, '{}')).rejects.toMatchObject({ code: 'already_exists' });
    });

    it('answers not_found for unknown and malformed ids', async () => {
      for (const id of ['ffffffffffffffff', '../etc', '']) {
        await expect(c.store.load(id)).rejects.toMatchObject({ code: 'not_found' });
        await expect(c.store.update(id, async () => ({ events: [], result: 1 }))).rejects.toMatchObject({ code: 'not_found' });
      }
      expect(await c.store.delete('ffffffffffffffff')).toBe(false);
    });

    it('appends the events decide returns, folds them, and returns its result; no events changes nothing', async () => {
      const first = started();
      await c.store.create(first, '{}');
      const r = await c.store.update(first.sessionId, async (state) => {
        expect(state.head.node).toBe(0);
        return { events: [advance(0, 1, 'b'), advance(1, 2, null)], result: 'ok' };
      });
      expect(r).toBe('ok');
      const s = await c.store.load(first.sessionId);
      expect(s.head).toMatchObject({ node: 2, completedSteps: ['s1', 's2'] });
      expect(s.eventCount).toBe(3);
      await c.store.update(first.sessionId, async () => ({ events: [], result: null }));
      expect((await c.store.load(first.sessionId)).eventCount).toBe(3);
      const h = await c.store.history(first.sessionId);
      expect(h.events.map((e) => e.kind)).toEqual(['session_started', 'step_completed', 'step_completed']);
      expect(h.damaged).toEqual([]);
    });

    it('a decide that throws appends nothing and the error reaches the caller', async () => {
      const first = started();
      await c.store.create(first, '{}');
      await expect(c.store.update(first.sessionId, async () => { throw new Error('refused'); })).rejects.toThrow('refused');
      expect((await c.store.history(first.sessionId)).events).toHaveLength(1);
    });

    it('runs concurrent updates of one session one at a time (each sees the previous one\'s events)', async () => {
      const first = started();
      await c.store.create(first, '{}');
      const seen: number[] = [];
      await Promise.all(
        Array.from({ length: 10 }, () =>
          c.store.update(first.sessionId, async (state) => {
            seen.push(state.head.node);
            await new Promise((r) => setTimeout(r, 5));
            return { events: [advance(state.head.node, state.nodeCount, 'x')], result: null };
          }),
        ),
      );
      expect(seen.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect((await c.store.load(first.sessionId)).head.node).toBe(10);
    });

    it('gives history() inside update the whole log', async () => {
      const first = started();
      await c.store.create(first, '{}');
      await c.store.update(first.sessionId, async () => ({ events: [advance(0, 1, 'b')], result: null }));
      const n = await c.store.update(first.sessionId, async (_s, history) => ({ events: [], result: (await history()).events.length }));
      expect(n).toBe(2);
    });

    it('lists sessions most recently updated first, filtered by status, workflow and workspace', async () => {
      const a = started(newId(), { workspacePath: '/w', goal: 'alpha' });
      const b = started(newId(), { workflowId: 'other', at: at(1) });
      await c.store.create(a, '{}');
      await c.store.create(b, '{}');
      await c.store.update(a.sessionId, async () => ({ events: [advance(0, 1, null), { kind: 'session_completed', at: at(9), node: 1, summary: 's' }], result: null }));
      const all = await c.store.list();
      expect(all.map((s) => s.sessionId)).toEqual([a.sessionId, b.sessionId]);
      expect(all[0]).toMatchObject({ status: 'complete', completedAt: at(9), goal: 'alpha', workspacePath: '/w' });
      expect(all[0].searchText).toContain('alpha');
      expect((await c.store.list({ statuses: ['active'] })).map((s) => s.sessionId)).toEqual([b.sessionId]);
      expect((await c.store.list({ workflowId: 'other' })).map((s) => s.sessionId)).toEqual([b.sessionId]);
      expect((await c.store.list({ workspacePath: '/w/' })).map((s) => s.sessionId)).toEqual([a.sessionId]);
    });

    it('keeps running verification records per run: set (a second write of a run replaces it), list, clear; gone with the session', async () => {
      const first = started();
      await c.store.create(first, '{}');
      const id = first.sessionId;
      expect(await c.store.runningVerifications(id)).toEqual([]);
      const run = {
        runId: '6f1c1a2e-0000-4000-8000-000000000001', node: 0, completionId: 'a__verification', stepId: 'a__verification', parentStepId: 'a',
        command: 'npm test', cwd: '/ws', timeoutMs: 1000, startedAt: at(1), owner: { host: 'h', bootId: 'b', pid: 42, startTicks: 7 },
      };
      await c.store.setRunningVerification(id, run);
      await c.store.setRunningVerification(id, { ...run, pgid: 4242 });
      const other = { ...run, runId: '6f1c1a2e-0000-4000-8000-000000000002' };
      await c.store.setRunningVerification(id, other);
      const listed = await c.store.runningVerifications(id);
      expect(listed.sort((x, y) => x.runId.localeCompare(y.runId))).toEqual([{ ...run, pgid: 4242 }, other]);
      await c.store.clearRunningVerification(id, run.runId);
      await c.store.clearRunningVerification(id, run.runId);
      expect(await c.store.runningVerifications(id)).toEqual([other]);
      await expect(c.store.setRunningVerification('0000000000000000', run)).rejects.toMatchObject({ code: 'not_found' });
      await c.store.delete(id);
      expect(await c.store.runningVerifications(id)).toEqual([]);
    });

    it('deletes a session: gone from load and from the list', async () => {
      const a = started();
      await c.store.create(a, '{}');
      expect(await c.store.delete(a.sessionId)).toBe(true);
      await expect(c.store.load(a.sessionId)).rejects.toMatchObject({ code: 'not_found' });
      expect(await c.store.list()).toEqual([]);
      expect(await c.store.delete(a.sessionId)).toBe(false);
    });

    it('imports a whole session exactly (every event and time, the pinned text), idempotently; a different one only with replace', async () => {
      const first = started(newId(), { at: '2025-03-04T05:06:07.089Z' });
      const events: SessionEvent[] = [first, { ...advance(0, 1, 'b'), at: '2025-03-04T06:00:00.001Z' }, { ...advance(1, 2, null), at: '2025-03-05T00:00:00.999Z' }];
      expect(await c.store.importSession(events, '{"id":"wf","é":1}')).toBe('imported');
      expect((await c.store.history(first.sessionId)).events).toEqual(events);
      expect(await c.store.pinnedWorkflow(first.sessionId)).toBe('{"id":"wf","é":1}');
      const loaded = await c.store.load(first.sessionId);
      expect(loaded.updatedAt).toBe('2025-03-05T00:00:00.999Z');
      expect((await c.store.list()).map((x) => [x.sessionId, x.updatedAt])).toEqual([[first.sessionId, '2025-03-05T00:00:00.999Z']]);
      expect(await c.store.importSession(events, '{"id":"wf","é":1}')).toBe('unchanged');
      const shorter = events.slice(0, 2);
      expect(await c.store.importSession(shorter, '{"id":"wf","é":1}')).toBe('skipped');
      expect((await c.store.history(first.sessionId)).events).toHaveLength(3);
      expect(await c.store.importSession(shorter, '{"id":"wf","é":1}', { replace: true })).toBe('imported');
      expect((await c.store.history(first.sessionId)).events).toEqual(shorter);
      // An imported session goes on like any other.
      await c.store.update(first.sessionId, async () => ({ events: [advance(1, 2, null)], result: undefined }));
      expect((await c.store.history(first.sessionId)).events).toHaveLength(3);
      await expect(c.store.importSession([advance(0, 1, null)], '{}')).rejects.toMatchObject({ code: 'storage_error' });
    });
  });
}
