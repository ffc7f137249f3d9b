import { ContractRun } from './contract-run';
import { InvalidArgumentsError, NotFoundError } from '../../src/kernel/errors';
import type { KnowledgeStore } from '../../src/modules/knowledge/application/ports/knowledge-store';
import type { DeletedNodeRecord, StoredKnowledgeNode } from '../../src/modules/knowledge/domain';

/**
 * The contract of the KnowledgeStore port: what every adapter (NDJSON files, PostgreSQL) must answer, run against
 * each of them by its own test file. `make` gives a fresh, empty store; `cleanup` runs after each test.
 */
export function knowledgeStoreContract(name: string, make: () => Promise<{ store: KnowledgeStore; cleanup?: () => Promise<void> }>): ContractRun {
  const run = new ContractRun(`KnowledgeStore contract: ${name}`);
  describe(run.suite, () => {
    const it = run.it;
    let store: KnowledgeStore;
    let cleanup: (() => Promise<void>) | undefined;
    beforeEach(async () => {
      ({ store, cleanup } = await make());
      run.met(store);
    });
    afterEach(async () => cleanup?.());

    const P = 'demo';
    let clock = Date.parse('2026-11-30T10:00:00.000Z');
    const node = (id: string, extra: Partial<StoredKnowledgeNode> = {}): StoredKnowledgeNode => ({
      id,
      project: P,
      projectContext: P,
      thought: `Thought ${id}`,
      role: 'actor',
      tags: [],
      artifacts: [],
      parents: [],
      createdAt: new Date((clock += 1000)).toISOString(),
      ...extra,
    });
    const add = (...nodes: StoredKnowledgeNode[]) => store.withLock(P, (g) => g.append(nodes));
    const record = (n: StoredKnowledgeNode, reason: string | null = 'obsolete'): DeletedNodeRecord => ({
      nodeId: n.id,
      project: P,
      reason,
      timestamp: '2026-11-30T11:00:00.123Z',
      nodeData: n,
    });
    const ids = (nodes: readonly { id: string }[]) => nodes.map((n) => n.id);

    it('resolves a bare project name to its slug', async () => {
      expect(await store.resolveProject('My App')).toBe('my-app');
    });

    it('an unknown project is empty, not an error', async () => {
      const r = store.reader('nothing-here');
      expect(await r.page({ limit: 10 })).toEqual({ nodes: [], nextCursor: null, malformedCount: 0 });
      expect(await r.get('x')).toBeUndefined();
      expect((await r.findByIds(new Set(['x']))).size).toBe(0);
      expect(await r.deleted()).toEqual({ records: [], total: 0 });
      expect(await r.stats()).toBeUndefined();
      expect(await store.listBackups('nothing-here')).toEqual([]);
      expect((await store.listProjects()).map((p) => p.project)).not.toContain('nothing-here');
    });

    it('stores nodes exactly as given (every field, timestamps to the millisecond)', async () => {
      const full = node('full', {
        role: 'critic',
        tags: ['t1', 't2'],
        artifacts: [{ name: 'spec', path: 'docs/spec.md', contentType: 'text/markdown' }],
        verdict: 'needs_revision',
        verdictReason: 'why',
        verdictReferences: ['a'],
        target: 'a',
        thought: 'multi\nline “unicode” ✓',
      });
      await add(node('a'), full);
      expect((await store.reader(P).get('full'))!.node).toEqual(full);
      expect((await store.reader(P).findByIds(new Set(['full', 'a', 'zz']))).get('full')).toEqual(full);
      expect(await store.reader(P).stats()).toEqual({ nodes: 2, deleted: 0, malformedCount: 0, roles: { actor: 1, critic: 1, summary: 0 } });
    });

    it('pages newest first; cursors walk every node exactly once', async () => {
      const nodes = Array.from({ length: 25 }, (_, i) => node(`n${String(i).padStart(2, '0')}`));
      await add(...nodes.slice(0, 10));
      await add(...nodes.slice(10));
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await store.reader(P).page({ limit: 7, cursor });
        expect(page.nodes.length).toBeLessThanOrEqual(7);
        seen.push(...ids(page.nodes));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual(ids(nodes).reverse());
    });

    it('filters pages by role, every tag and text (case-insensitive)', async () => {
      await add(
        node('a', { tags: ['x', 'y'], thought: 'Alpha BETA' }),
        node('b', { role: 'critic', tags: ['x'], thought: 'beta' }),
        node('c', { tags: ['y'], thought: 'gamma' }),
        node('d', { role: 'summary', tags: ['x', 'y'], thought: 'delta beta', summarizedSegment: ['a'] }),
      );
      const r = store.reader(P);
      expect(ids((await r.page({ limit: 10, role: 'actor' })).nodes)).toEqual(['c', 'a']);
      expect(ids((await r.page({ limit: 10, tags: ['x', 'y'] })).nodes)).toEqual(['d', 'a']);
      expect(ids((await r.page({ limit: 10, text: 'bEtA' })).nodes)).toEqual(['d', 'b', 'a']);
      expect(ids((await r.page({ limit: 10, text: 'beta', tags: ['x'], role: 'critic' })).nodes)).toEqual(['b']);
      // Filtered paging also walks everything once.
      const first = await r.page({ limit: 1, tags: ['x'] });
      const second = await r.page({ limit: 5, tags: ['x'], cursor: first.nextCursor! });
      expect([...ids(first.nodes), ...ids(second.nodes)]).toEqual(['d', 'b', 'a']);
    });

    it('refuses a cursor it did not make', async () => {
      await add(node('a'));
      await expect(store.reader(P).page({ limit: 5, cursor: 'garbage' })).rejects.toBeInstanceOf(InvalidArgumentsError);
    });

    it('gets a node with its children; finds dependents transitively', async () => {
      await add(node('a'), node('b', { parents: ['a'] }), node('c', { parents: ['b'] }), node('d', { parents: ['a', 'c'] }), node('e'));
      expect(await store.reader(P).get('a')).toEqual({ node: expect.objectContaining({ id: 'a' }), children: ['b', 'd'] });
      expect((await store.reader(P).get('e'))!.children).toEqual([]);
      const { found, dependents } = await store.reader(P).findDependents(['b', 'zz']);
      expect([...found.keys()]).toEqual(['b']);
      expect([...dependents.keys()].sort()).toEqual(['c', 'd']);
      expect(dependents.get('d')!.parents).toEqual(['a', 'c']);
      expect((await store.reader(P).findDependents(['c', 'd'])).dependents.size).toBe(0);
    });

    it('finds the summaries that name ids in their segment or history', async () => {
      await add(
        node('a'),
        node('b'),
        node('s1', { role: 'summary', summarizedSegment: ['a', 'b'] }),
        node('s2', { role: 'summary', summarizedSegment: ['b'], summaryHistory: [{ thought: 'old', summarizedSegment: ['a', 'b'], deletedNodeIds: ['a'], replacedAt: '2026-11-30T10:00:00.000Z' }] }),
        node('x', { thought: 'mentions a in text only', parents: ['a'] }),
      );
      expect(ids(await store.reader(P).findSummariesMentioning(new Set(['a']))).sort()).toEqual(['s1', 's2']);
      expect(ids(await store.reader(P).findSummariesMentioning(new Set(['zz'])))).toEqual([]);
    });

    it('deletes with a backup: nodes gone, records kept newest first, summaries reported', async () => {
      const a = node('a');
      const b = node('b', { parents: ['a'] });
      const c = node('c');
      const s = node('s', { role: 'summary', summarizedSegment: ['a', 'c'] });
      await add(a, b, c, s);
      const report = await store.withLock(P, (g) => g.deleteWithBackup([record(a), record(b, null)]));
      expect(typeof report.backupPath).toBe('string');
      expect(report.backupPath).not.toBe('');
      expect(ids(report.summaries)).toEqual(['s']);
      expect(report.malformedCount).toBe(0);
      const r = store.reader(P);
      expect(ids((await r.page({ limit: 10 })).nodes)).toEqual(['s', 'c']);
      expect(await r.get('a')).toBeUndefined();
      expect((await r.findByIds(new Set(['a', 'b', 'c']))).size).toBe(1);
      const del = await r.deleted();
      expect(del.total).toBe(2);
      expect(del.records.map((x) => x.nodeId).sort()).toEqual(['a', 'b']);
      expect(del.records.find((x) => x.nodeId === 'b')).toEqual(record(b, null));
      expect(del.records.find((x) => x.nodeId === 'a')).toEqual(record(a));
      expect((await r.deleted({ nodeIds: new Set(['b']) })).records.map((x) => x.nodeId)).toEqual(['b']);
      expect(await r.stats()).toEqual({ nodes: 2, deleted: 2, malformedCount: 0, roles: { actor: 1, critic: 0, summary: 1 } });
      // A later delete's records come first.
      await store.withLock(P, (g) => g.deleteWithBackup([{ ...record(c), timestamp: '2026-11-30T12:00:00.000Z' }]));
      expect((await r.deleted({ limit: 1 })).records.map((x) => x.nodeId)).toEqual(['c']);
      expect((await r.deleted({ limit: 1 })).total).toBe(3);
    });

    it('lists backups newest first, each naming what the delete answered, and reads them back', async () => {
      const a = node('a');
      const b = node('b');
      await add(a, b);
      const first = await store.withLock(P, (g) => g.deleteWithBackup([record(a)]));
      const second = await store.withLock(P, (g) => g.deleteWithBackup([record(b)]));
      const backups = await store.listBackups(P);
      expect(backups.map((x) => x.path)).toEqual([second.backupPath, first.backupPath]);
      for (const x of backups) {
        expect(x.id).toMatch(/^demo\/./);
        expect(Number.isNaN(Date.parse(x.modifiedAt))).toBe(false);
      }
      const byId = await store.readBackup(backups[1]!.id);
      expect(byId.project).toBe(P);
      expect(byId.nodes).toContainEqual(a);
      const byPath = await store.readBackup(second.backupPath);
      expect(byPath.backup.id).toBe(backups[0]!.id);
      expect(byPath.nodes).toContainEqual(b);
      await expect(store.readBackup('demo/no-such-backup')).rejects.toBeInstanceOf(NotFoundError);
      const info = (await store.listProjects()).find((p) => p.project === P)!;
      expect(info.backups).toBe(2);
      expect(info.sizeBytes).toBeGreaterThanOrEqual(0);
    });

    it('copies backups in and out (db import/export): name, time to the millisecond, nodes in order; the same name is replaced', async () => {
      const a = node('a');
      const b = node('b');
      expect(await store.exportBackups(P)).toEqual({ backups: [], ignored: [] });
      const first = 'knowledge_graph_20261130-090000.ndjson';
      const second = 'knowledge_graph_20261130-090000-1.ndjson';
      await store.importBackups(P, [
        { name: first, takenAt: '2026-11-30T09:00:00.123Z', nodes: [b, a] },
        { name: second, takenAt: '2026-11-30T09:00:00.456Z', nodes: [a] },
      ]);
      // Newest first by time, though a plain sort of the names would put the first before the second.
      expect((await store.listBackups(P)).map((x) => x.modifiedAt)).toEqual(['2026-11-30T09:00:00.456Z', '2026-11-30T09:00:00.123Z']);
      expect((await store.readBackup(`${P}/${first}`)).nodes).toEqual([b, a]);
      const out = await store.exportBackups(P);
      expect(out.backups.map((x) => [x.name, x.takenAt, ids(x.nodes)])).toEqual([
        [first, '2026-11-30T09:00:00.123Z', ['b', 'a']],
        [second, '2026-11-30T09:00:00.456Z', ['a']],
      ]);
      await store.importBackups(P, [{ name: first, takenAt: '2026-11-30T09:00:00.123Z', nodes: [a] }]);
      expect(await store.listBackups(P)).toHaveLength(2);
      expect((await store.readBackup(`${P}/${first}`)).nodes).toEqual([a]);
    });

    it("exports a delete's backup under a backup file name, its nodes in graph order", async () => {
      const [a, b, c] = [node('a'), node('b'), node('c')];
      await add(a, b, c);
      await store.withLock(P, (g) => g.deleteWithBackup([record(c), record(a)]));
      const [backup] = (await store.exportBackups(P)).backups;
      expect(backup!.name).toMatch(/^knowledge_graph_\d{8}-\d{6}(-\d+)?\.ndjson$/);
      expect(backup!.takenAt).toBe((await store.listBackups(P))[0]!.modifiedAt);
      expect(ids(backup!.nodes).filter((id) => id !== 'b')).toEqual(['a', 'c']);
      expect(ids((await store.readBackup((await store.listBackups(P))[0]!.id)).nodes).filter((id) => id !== 'b')).toEqual(['a', 'c']);
    });

    it('restores nodes as the newest and removes their deletion records', async () => {
      const a = node('a');
      const b = node('b', { parents: ['a'] });
      const c = node('c');
      await add(a, b, c);
      await store.withLock(P, (g) => g.deleteWithBackup([record(a), record(b)]));
      await store.withLock(P, (g) => g.restore([a, b]));
      const r = store.reader(P);
      expect(ids((await r.page({ limit: 10 })).nodes)).toEqual(['b', 'a', 'c']);
      expect((await r.get('b'))!.node).toEqual(b);
      expect((await r.get('a'))!.children).toEqual(['b']);
      expect(await r.deleted()).toEqual({ records: [], total: 0 });
      // Deleted again and restored again: still one of each.
      await store.withLock(P, (g) => g.deleteWithBackup([record(c)]));
      await store.withLock(P, (g) => g.restore([c]));
      expect(ids((await r.page({ limit: 10 })).nodes)).toEqual(['c', 'b', 'a']);
      expect(await r.stats()).toEqual({ nodes: 3, deleted: 0, malformedCount: 0, roles: { actor: 3, critic: 0, summary: 0 } });
    });

    it('updates nodes in place (their place in the order kept) and says which changed', async () => {
      await add(node('a'), node('s', { role: 'summary', summarizedSegment: ['a'] }), node('z'));
      const changed = await store.withLock(P, (g) =>
        g.updateNodes(new Set(['s', 'z', 'missing']), (n) => (n.id === 's' ? { ...n, thought: 'rewritten', summarizedSegment: [] } : undefined)),
      );
      expect(changed).toEqual(['s']);
      const r = store.reader(P);
      expect((await r.get('s'))!.node).toMatchObject({ thought: 'rewritten', summarizedSegment: [] });
      expect(ids((await r.page({ limit: 10 })).nodes)).toEqual(['z', 's', 'a']);
    });

    it('serializes writers of one project: each sees the other\'s writes', async () => {
      await add(node('seed'));
      const order: string[] = [];
      await Promise.all(
        [1, 2, 3].map((i) =>
          store.withLock(P, async (g) => {
            order.push(`in${i}`);
            const page = await g.page({ limit: 100 });
            await g.append([node(`w${i}-${page.nodes.length}`)]);
            order.push(`out${i}`);
          }),
        ),
      );
      // No writer entered before the previous one left; each counted the nodes of the ones before.
      for (let k = 0; k < order.length; k += 2) expect(order[k]!.slice(2)).toBe(order[k + 1]!.slice(3));
      expect(ids((await store.reader(P).page({ limit: 100 })).nodes).map((id) => id.split('-')[1]).sort()).toEqual(['1', '2', '3']);
    });

    it('exports a project oldest first and imports it exactly, replacing what was there', async () => {
      const a = node('a', { tags: ['k'] });
      const b = node('b', { parents: ['a'] });
      const c = node('c', { parents: ['a'] });
      await add(a, b, c);
      await store.withLock(P, (g) => g.deleteWithBackup([record(b)]));
      const all = async (project: string) => {
        const exp = (await store.exportProject(project))!;
        const nodes: StoredKnowledgeNode[] = [];
        await exp.forEachBatch(async (batch) => void nodes.push(...batch));
        return { exp, nodes };
      };
      const { exp, nodes } = await all(P);
      expect(nodes).toEqual([a, c]);
      expect(exp.deleted).toEqual([record(b)]);
      await store.withLock('copy', (g) => g.append([node('junk')]));
      expect(await store.importProject({ ...exp, project: 'copy' })).toEqual({ nodes: 2, deleted: 1 });
      const back = await all('copy');
      expect(back.nodes).toEqual([a, c]);
      expect(back.exp.deleted).toEqual([record(b)]);
      expect(ids((await store.reader('copy').page({ limit: 10 })).nodes)).toEqual(['c', 'a']);
      expect(await store.reader('copy').stats()).toEqual({ nodes: 2, deleted: 1, malformedCount: 0, roles: { actor: 2, critic: 0, summary: 0 } });
      expect(await store.exportProject('nothing-here')).toBeUndefined();
    });

    it('keeps projects apart and lists them sorted', async () => {
      await add(node('a'));
      await store.withLock('other', (g) => g.append([{ ...node('b'), project: 'other', projectContext: 'other' }]));
      expect((await store.reader('other').findByIds(new Set(['a', 'b']))).size).toBe(1);
      const listed = (await store.listProjects()).map((p) => p.project);
      expect(listed).toEqual([...listed].sort());
      expect(listed).toEqual(expect.arrayContaining([P, 'other']));
    });
  });
  return run;
}
