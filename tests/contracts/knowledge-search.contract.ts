import { ContractRun } from './contract-run';
import { ErrorCodes, InvalidArgumentsError } from '../../src/kernel/errors';
import { silentLogger } from '../../src/kernel/logger';
import { RecalculateSummaries } from '../../src/modules/knowledge/application/use-cases/recalculate-summaries';
import { staleSearchCursorError } from '../../src/modules/knowledge/domain';
import type { KnowledgeStore } from '../../src/modules/knowledge/application/ports/knowledge-store';
import type { DeletedNodeRecord, StoredKnowledgeNode } from '../../src/modules/knowledge/domain';
import { SearchNodes, type SearchNodesInput } from '../../src/modules/knowledge/application/use-cases/search-nodes';
import { GetNode } from '../../src/modules/knowledge/application/use-cases/get-node';
import { noopCallContext } from '../../src/kernel/call-context';

/**
 * The search contract (search_nodes and get_node's neighbours through their use cases) that every KnowledgeStore
 * adapter must keep: the same query language, the same matches and — on these cases — the same set of hits on the
 * first page, whichever store ranks them. Both rank by the same score (Σ idf × ts_rank impact, equal to the bit):
 * knowledge-ranking-agreement.test.ts compares the two stores query for query, order and scores included.
 */
/** What a case may ask of the store it makes: `searchTotalCap` lowers the cap on counting matches (SEARCH_TOTAL_CAP). */
export interface SearchStoreOptions {
  searchTotalCap?: number;
}

export function knowledgeSearchContract(name: string, make: (opts?: SearchStoreOptions) => Promise<{ store: KnowledgeStore; cleanup?: () => Promise<void> }>): ContractRun {
  const run = new ContractRun(`knowledge search contract: ${name}`);
  describe(run.suite, () => {
    const it = run.it;
    let store: KnowledgeStore;
    let cleanup: (() => Promise<void>) | undefined;
    let search: (input: Partial<SearchNodesInput> & { query: string }) => ReturnType<SearchNodes['execute']>;
    beforeEach(async () => {
      ({ store, cleanup } = await make());
      run.met(store);
      const uc = new SearchNodes(store);
      search = (input) => uc.execute({ projectContext: P, ...input } as SearchNodesInput);
    });
    afterEach(async () => cleanup?.());

    const P = 'demo';
    let clock = Date.parse('2026-11-30T10:00:00.000Z');
    const node = (id: string, thought: string, extra: Partial<StoredKnowledgeNode> = {}): StoredKnowledgeNode => ({
      id,
      project: extra.project ?? P,
      projectContext: extra.project ?? P,
      thought,
      role: 'actor',
      tags: [],
      artifacts: [],
      parents: [],
      createdAt: new Date((clock += 60_000)).toISOString(),
      ...extra,
    });
    const add = (...nodes: StoredKnowledgeNode[]) => store.withLock(nodes[0]!.project, (g) => g.append(nodes));
    const ids = async (input: Partial<SearchNodesInput> & { query: string }) => (await search(input)).hits.map((h) => h.id);
    const sorted = (xs: string[]) => [...xs].sort();

    const corpus = () =>
      add(
        node('a1', 'Retry the upload with exponential backoff when the store answers busy'),
        node('a2', 'Backoff is exponential here, then we retry', { tags: ['net'] }),
        node('a3', 'Caching the parsed schema made validation faster', { tags: ['perf'], role: 'critic' }),
        node('a4', 'The cache was cold after a restart', { tags: ['perf', 'ops'] }),
        node('a5', 'Flaky retry test on CI, quarantined', { tags: ['test'] }),
        node('a6', 'Use redis for sessions'),
        node('a7', 'Memcached would do for sessions too'),
        node('a8', 'Le café est prêt: CAFÉ with accents', { artifacts: [{ name: 'notes.md', path: 'docs/retry-policy.md' }] }),
      );

    it('words are ANDed, stemmed and ranked (thought above tags above artifact paths)', async () => {
      await corpus();
      expect(sorted(await ids({ query: 'retries' }))).toEqual(['a1', 'a2', 'a5', 'a8']);
      expect(sorted(await ids({ query: 'retry backoff' }))).toEqual(['a1', 'a2']);
      const r = await search({ query: 'retry' });
      expect(r.hits[r.hits.length - 1]!.id).toBe('a8'); // only in an artifact path: ranked last
      expect(r.total).toBe(4);
      expect(r.totalExact).toBe(true);
      expect(r.project).toBe(P);
      for (const h of r.hits) expect(h.score).toBeGreaterThan(0);
    });

    it('a "phrase" matches the words next to each other, in order', async () => {
      await corpus();
      expect(await ids({ query: '"exponential backoff"' })).toEqual(['a1']);
      expect(sorted(await ids({ query: 'exponential backoff' }))).toEqual(['a1', 'a2']);
    });

    it('a prefix* matches every term starting with it', async () => {
      await corpus();
      expect(sorted(await ids({ query: 'cach*' }))).toEqual(['a3', 'a4']);
      expect(sorted(await ids({ query: 'memc*' }))).toEqual(['a7']);
    });

    it('-word excludes, OR gives alternatives', async () => {
      await corpus();
      expect(sorted(await ids({ query: 'retry -flaky' }))).toEqual(['a1', 'a2', 'a8']);
      expect(sorted(await ids({ query: 'retry -"exponential backoff"' }))).toEqual(['a2', 'a5', 'a8']);
      expect(sorted(await ids({ query: 'redis OR memcached' }))).toEqual(['a6', 'a7']);
      expect(sorted(await ids({ query: 'sessions redis OR memcached' }))).toEqual(['a6', 'a7']);
      expect(await ids({ query: 'sessions redis' })).toEqual(['a6']);
    });

    it('case and accents are folded', async () => {
      await corpus();
      expect(await ids({ query: 'cafe' })).toEqual(['a8']);
      expect(await ids({ query: 'CAFÉ' })).toEqual(['a8']);
      expect(await ids({ query: 'PRET' })).toEqual(['a8']);
    });

    it('filters by tags, role and time, and the snippet marks the matches', async () => {
      await corpus();
      expect(sorted(await ids({ query: 'cache OR caching', tags: ['perf'] }))).toEqual(['a3', 'a4']);
      expect(await ids({ query: 'cache OR caching', tags: ['perf', 'ops'] })).toEqual(['a4']);
      expect(await ids({ query: 'cach*', role: 'critic' })).toEqual(['a3']);
      const all = await search({ query: 'retry' });
      const a2 = all.hits.find((h) => h.id === 'a2')!;
      expect(await ids({ query: 'retry', since: a2.createdAt })).toEqual(expect.arrayContaining(['a2', 'a5', 'a8']));
      expect(await ids({ query: 'retry', since: a2.createdAt })).not.toContain('a1');
      expect(await ids({ query: 'retry', until: a2.createdAt })).toEqual(expect.arrayContaining(['a1', 'a2']));
      expect((await ids({ query: 'retry', until: a2.createdAt })).length).toBe(2);
      const hit = (await search({ query: '"exponential backoff"' })).hits[0]!;
      expect(hit.snippet).toContain('**exponential** **backoff**');
      expect(hit.thought).toBe('Retry the upload with exponential backoff when the store answers busy');
      expect(Object.keys(hit).sort()).toEqual(['createdAt', 'id', 'project', 'role', 'score', 'snippet', 'tags', 'thought']);
    });

    it("the snippet escapes the thought's own \\ and *, so its ** are only ever marks", async () => {
      await add(node('m1', 'A **bold** claim: retry with C:\\tmp\\ and a * star'), node('m2', '*Flaky* notes\nsecond line', { tags: ['retry'] }));
      const hits = (await search({ query: 'retry' })).hits;
      expect(hits.find((h) => h.id === 'm1')!.snippet).toBe('A \\*\\*bold\\*\\* claim: **retry** with C:\\\\tmp\\\\ and a \\* star');
      // Matched in its tags only: its first line, escaped the same way.
      expect(hits.find((h) => h.id === 'm2')!.snippet).toBe('\\*Flaky\\* notes');
    });

    it('deleted nodes are left out unless asked for; restored ones are found again', async () => {
      await corpus();
      const [a6] = [...(await store.reader(P).findByIds(new Set(['a6']))).values()];
      const rec: DeletedNodeRecord = { nodeId: 'a6', project: P, reason: null, timestamp: '2026-11-30T12:00:00.000Z', nodeData: a6! };
      await store.withLock(P, (g) => g.deleteWithBackup([rec]));
      expect(await ids({ query: 'redis' })).toEqual([]);
      const withDeleted = await search({ query: 'redis', includeDeleted: true });
      expect(withDeleted.hits.map((h) => [h.id, h.deleted])).toEqual([['a6', true]]);
      await store.withLock(P, (g) => g.restore([a6!]));
      expect(await ids({ query: 'redis' })).toEqual(['a6']);
      expect((await search({ query: 'redis', includeDeleted: true })).hits.map((h) => h.deleted ?? false)).toEqual([false]);
    });

    it('a summary recalculation is reflected (the new text is found, the old one no longer)', async () => {
      await add(node('s0', 'gamma'), node('s1', 'Summary: zebra crossing', { role: 'summary', summarizedSegment: ['s0'] }));
      expect(await ids({ query: 'zebra' })).toEqual(['s1']);
      await store.withLock(P, (g) => g.updateNodes(new Set(['s1']), (n) => ({ ...n, thought: 'Summary: giraffe' })));
      expect(await ids({ query: 'zebra' })).toEqual([]);
      expect(await ids({ query: 'giraffe' })).toEqual(['s1']);
    });

    it('pages are stable while nodes are added between them', async () => {
      for (let i = 0; i < 7; i++) await add(node(`p${i}`, `pager word ${'pager '.repeat(i)}`.trim()));
      const first = await search({ query: 'pager', limit: 3 });
      expect(first.hits).toHaveLength(3);
      expect(first.total).toBe(7);
      await add(node('late1', 'pager pager pager pager pager pager pager pager pager'), node('late2', 'pager'));
      const seen = first.hits.map((h) => h.id);
      let cursor = first.nextCursor;
      while (cursor) {
        const page = await search({ query: 'pager', limit: 3, cursor });
        seen.push(...page.hits.map((h) => h.id));
        cursor = page.nextCursor;
      }
      expect(sorted(seen)).toEqual(['p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
      // Higher term frequency ranks first.
      expect(first.hits[0]!.id).toBe('p6');
      expect(sorted(await ids({ query: 'pager', limit: 100 }))).toEqual(['late1', 'late2', 'p0', 'p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
    });

    it('a delete, a restore or a summary recalculation since the first page refuses its cursor, on every path; adds do not', async () => {
      for (let i = 0; i < 7; i++) await add(node(`p${i}`, `pager word ${'pager '.repeat(i)}`.trim()));
      await add(node('sum', 'Summary: pager notes', { role: 'summary', summarizedSegment: ['p0', 'p1'] }));
      const stale = { code: ErrorCodes.InvalidArguments, message: staleSearchCursorError().message };
      // One word (PostgreSQL's one-statement first page), several words, a filter, deleted nodes too.
      const queries: Array<Partial<SearchNodesInput> & { query: string }> = [
        { query: 'pager' },
        { query: 'pager word' },
        { query: 'pager', role: 'actor' },
        { query: 'pager', includeDeleted: true },
      ];
      const firstPages = () =>
        Promise.all(
          queries.map(async (q) => {
            const r = await search({ ...q, limit: 2 });
            expect(r.nextCursor).toEqual(expect.any(String));
            return { q, cursor: r.nextCursor! };
          }),
        );
      const later = ({ q, cursor }: { q: Partial<SearchNodesInput> & { query: string }; cursor: string }) => search({ ...q, limit: 2, cursor });

      let pages = await firstPages();
      await add(node('late', 'pager pager pager'));
      for (const p of pages) expect((await later(p)).hits).toHaveLength(2);

      pages = await firstPages();
      const [p6] = [...(await store.reader(P).findByIds(new Set(['p6']))).values()];
      await store.withLock(P, (g) => g.deleteWithBackup([{ nodeId: 'p6', project: P, reason: null, timestamp: '2026-11-30T12:00:00.000Z', nodeData: p6! }]));
      for (const p of pages) await expect(later(p)).rejects.toMatchObject(stale);

      pages = await firstPages();
      await store.withLock(P, (g) => g.restore([p6!]));
      for (const p of pages) await expect(later(p)).rejects.toMatchObject(stale);

      pages = await firstPages();
      const [summary] = [...(await store.reader(P).findByIds(new Set(['sum']))).values()];
      const recalculated = await new RecalculateSummaries(store, silentLogger).execute({ project: P, deleted: new Set(['p1']), summaries: [summary!] });
      expect(recalculated.map((r) => r.status)).toEqual(['recalculated']);
      for (const p of pages) await expect(later(p)).rejects.toMatchObject(stale);

      // Searched again without a cursor, the pages go on.
      pages = await firstPages();
      for (const p of pages) expect((await later(p)).hits).toHaveLength(2);
    });

    it('over several projects every page answers the same total, a project finished on an earlier page included', async () => {
      for (let i = 0; i < 5; i++) await add(node(`d${i}`, `quota check number ${i}`));
      // Ranked above every demo hit: the other project is finished on the first page.
      await add(node('o1', 'quota quota quota quota quota', { project: 'other' }));
      await add(node('t1', 'quota quota quota quota', { project: 'third' }));
      const seen: string[] = [];
      const totals: Array<[number, boolean]> = [];
      let cursor: string | null | undefined;
      do {
        const page = await search({ projectContext: undefined, projects: '*', query: 'quota', limit: 2, ...(cursor ? { cursor } : {}) });
        seen.push(...page.hits.map((h) => `${h.project}/${h.id}`));
        totals.push([page.total, page.totalExact]);
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen.slice(0, 2)).toEqual(['other/o1', 'third/t1']);
      expect(sorted(seen)).toEqual(['demo/d0', 'demo/d1', 'demo/d2', 'demo/d3', 'demo/d4', 'other/o1', 'third/t1']);
      expect(totals).toEqual(Array(4).fill([7, true]));
      // A damaged several-projects cursor: one line naming `cursor`.
      await expect(search({ projectContext: undefined, projects: '*', query: 'quota', cursor: 'm2.' + Buffer.from('[{},-1,true]').toString('base64url') })).rejects.toMatchObject({
        code: ErrorCodes.InvalidArguments,
        message: expect.stringMatching(/^cursor: '.*' is not a cursor of a search_nodes call over several projects$/),
      });
    });

    it('total is exact up to the cap; past it either exact or the cap with totalExact false, and paging still reaches every hit', async () => {
      const capped = await make({ searchTotalCap: 3 });
      try {
        run.met(capped.store);
        const uc = new SearchNodes(capped.store);
        const find = (input: Partial<SearchNodesInput> & { query: string }) => uc.execute({ projectContext: P, ...input } as SearchNodesInput);
        const put = (...nodes: StoredKnowledgeNode[]) => capped.store.withLock(nodes[0]!.project, (g) => g.append(nodes));
        for (let i = 0; i < 7; i++) await put(node(`c${i}`, `capped word ${i % 2 ? 'odd' : 'even'} ${'capped '.repeat(i)}`.trim(), { role: i < 2 ? 'critic' : 'actor' }));
        await put(node('o1', 'capped word elsewhere', { project: 'other' }));
        // Under the cap: exact.
        const few = await find({ query: 'capped', role: 'critic' });
        expect([few.total, few.totalExact]).toEqual([2, true]);
        const three = await find({ query: 'capped even', role: 'actor' });
        expect([three.total, three.totalExact]).toEqual([3, true]);
        // Over it: a store that knows the figure says it, else the cap as a lower bound.
        for (const query of ['capped', 'capped word', 'capped -nothing']) {
          const r = await find({ query, limit: 2 });
          expect([r.total, r.totalExact]).toEqual(r.totalExact ? [7, true] : [3, false]);
          const seen = r.hits.map((h) => h.id);
          let cursor = r.nextCursor;
          while (cursor) {
            const page = await find({ query, limit: 2, cursor });
            seen.push(...page.hits.map((h) => h.id));
            expect([page.total, page.totalExact]).toEqual(page.totalExact ? [7, true] : [3, false]);
            cursor = page.nextCursor;
          }
          expect(sorted(seen)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6']);
        }
        // Several projects: the sum, exact only if every project's is.
        const both = await find({ projectContext: undefined, projects: '*', query: 'capped word' });
        const demo = await find({ query: 'capped word' });
        expect(both.totalExact).toBe(demo.totalExact);
        expect(both.total).toBe(demo.total + 1);
      } finally {
        await capped.cleanup?.();
      }
    });

    it('searches several projects, each hit naming its project', async () => {
      await corpus();
      await add(node('o1', 'Retry budget for the other service', { project: 'other' }));
      const r = await search({ projectContext: undefined, projects: '*', query: 'retry' });
      expect(r.project).toBeNull();
      expect(r.total).toBe(5);
      expect(sorted(r.hits.map((h) => `${h.project}/${h.id}`))).toEqual(['demo/a1', 'demo/a2', 'demo/a5', 'demo/a8', 'other/o1']);
      const listed = await search({ projectContext: undefined, projects: ['other'], query: 'retry' });
      expect(listed.hits.map((h) => `${h.project}/${h.id}`)).toEqual(['other/o1']);
      // Paged two at a time: every hit once.
      const seen: string[] = [];
      let cursor: string | null | undefined;
      do {
        const page = await search({ projectContext: undefined, projects: '*', query: 'retry', limit: 2, ...(cursor ? { cursor } : {}) });
        seen.push(...page.hits.map((h) => `${h.project}/${h.id}`));
        cursor = page.nextCursor;
      } while (cursor);
      expect(sorted(seen)).toEqual(['demo/a1', 'demo/a2', 'demo/a5', 'demo/a8', 'other/o1']);
    });

    it('never searches a project the caller may not see', async () => {
      const alice = await store.resolveProject('/srv/alice/app', { claim: true });
      const bob = await store.resolveProject('/srv/bob/tool', { claim: true });
      await add(node('x1', 'shared secret plan', { project: alice, projectContext: '/srv/alice/app' }));
      await add(node('x2', 'shared secret plan', { project: bob, projectContext: '/srv/bob/tool' }));
      await add(node('x3', 'shared secret plan', { project: 'bare' }));
      const uc = new SearchNodes(store);
      const ctx = { ...noopCallContext(), identity: { name: 'alice', roots: ['/srv/alice'], scopes: ['read' as const] } };
      const all = await uc.execute({ projects: '*', query: 'secret' }, ctx);
      expect(all.hits.map((h) => `${h.project}/${h.id}`)).toEqual([`${alice}/x1`]);
      expect(all.total).toBe(1);
      const named = await uc.execute({ projects: ['/srv/bob/tool', 'bare', '/srv/alice/app'], query: 'secret' }, ctx);
      expect(named.hits.map((h) => h.id)).toEqual(['x1']);
      // Named alone, another's folder is refused as an argument, as by every knowledge tool.
      await expect(uc.execute({ projectContext: '/srv/bob/tool', query: 'secret' }, ctx)).rejects.toMatchObject({ code: 'path_not_allowed' });
      // Without roots (stdio, a plain token) every project is searched.
      expect((await uc.execute({ projects: '*', query: 'secret' }, noopCallContext())).total).toBe(3);
    });

    it('refuses a query with nothing to look for, and takes regex-looking text as words', async () => {
      await corpus();
      for (const query of ['', '   ', 'the', '-retry', '"', '*', '!!!']) {
        await expect(search({ query })).rejects.toThrow(InvalidArgumentsError);
      }
      await expect(search({ query: Array.from({ length: 10_000 }, (_, i) => `w${i}`).join(' ').slice(0, 999) })).rejects.toThrow(/at most 32 search terms/);
      // Whole, 10,000 terms (58,889 characters) or one 3 KB word are refused by their length before any parsing; a
      // word of 999 characters is looked for like any other.
      await expect(search({ query: Array.from({ length: 10_000 }, (_, i) => `w${i}`).join(' ') })).rejects.toThrow('query: at most 1000 characters (got 58889)');
      await expect(search({ query: 'x'.repeat(3000) })).rejects.toThrow('query: at most 1000 characters (got 3000)');
      expect(await ids({ query: 'x'.repeat(999) })).toEqual([]);
      // Punctuation joins words into a phrase, as in a web search engine: this is "exponential backoff".
      expect(await ids({ query: '^(exponential|backoff)+.*$' })).toEqual(['a1']);
      // SQL-looking text is words too: sessions OR "1 1".
      expect(sorted(await ids({ query: "sessions') OR 1=1; --" }))).toEqual(['a6', 'a7']);
      await expect(search({ query: 'retry', cursor: 'garbage' })).rejects.toThrow(InvalidArgumentsError);
      expect(await ids({ query: 'nothingmatchesthis' })).toEqual([]);
    });

    it('get_node with neighbours: parents, children and covering summaries in brief', async () => {
      await add(
        node('n1', 'root idea'),
        node('n2', 'child idea', { parents: ['n1'] }),
        node('n3', 'grandchild idea', { parents: ['n2'] }),
        node('n4', 'Summary of n2', { role: 'summary', summarizedSegment: ['n1', 'n2'] }),
      );
      const r = await new GetNode(store).execute({ projectContext: P, id: 'n2', neighbours: true });
      expect(r.neighbours!.parents.map((b) => b.id)).toEqual(['n1']);
      expect(r.neighbours!.children.map((b) => b.id)).toEqual(['n3']);
      expect(r.neighbours!.summaries.map((b) => b.id)).toEqual(['n4']);
      expect(Object.keys(r.neighbours!.parents[0]!).sort()).toEqual(['createdAt', 'id', 'role', 'tags', 'thought']);
      expect((await new GetNode(store).execute({ projectContext: P, id: 'n2' })).neighbours).toBeUndefined();
    });
  });
  return run;
}
