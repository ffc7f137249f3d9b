import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../../../src/kernel/logger';
import { createNdjsonKnowledgeStore, type NdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { SearchNodes } from '../../../src/modules/knowledge/application/use-cases/search-nodes';
import { DeleteNodes } from '../../../src/modules/knowledge/application/use-cases/delete-nodes';
import { RestoreNodes } from '../../../src/modules/knowledge/application/use-cases/restore-nodes';
import { ManualClock } from './support/knowledge-env';
import { silentLogger } from '../../../src/kernel/logger';
import type { StoredKnowledgeNode } from '../../../src/modules/knowledge/domain';
import { MANIFEST_FILE, SEARCH_DIR, type IndexManifest } from '../../../src/modules/knowledge/infrastructure/search-index/search-index';
import { segmentCache } from '../../../src/modules/knowledge/infrastructure/search-index/segment-files';

/**
 * A rewrite of the graph (delete_nodes, a summary recalculation, restore_nodes' summaries brought back, a delete
 * whose nodes had children) is followed by the index — deleted documents marked, offsets mapped, segments holding a
 * rewritten line indexed again — not rebuilt: after random adds, deletes, restores and rewrites, every search (ids,
 * order, scores, totals, pages by cursor, deleted nodes) equals a freshly built index's, through the store that wrote
 * and through another (another process), and the index was followed, never rebuilt, at each step.
 */
describe('knowledge search index after rewrites: followed, equal to a fresh index', () => {
  const P = 'follow';
  let dir: string;
  let warnings: string[];
  const words = ['retry', 'backoff', 'cache', 'budget', 'parser', 'queue', 'latency', 'worker', 'lantern', 'ledger', 'zyzzyva', 'quorum'];
  // A seeded generator: each run is the same sequence.
  let seed = 0;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  let k = 0;
  let t = Date.parse('2026-11-01T00:00:00.000Z');
  // Twelve words most nodes share (dense in every segment) and forty rare ones (sparse: postings in blocks).
  const thought = () => Array.from({ length: 3 + Math.floor(rand() * 12) }, () => pick(words)).join(' ') + ` rare${Math.floor(rand() * 40)} note ${k}`;
  const node = (extra: Partial<StoredKnowledgeNode> = {}): StoredKnowledgeNode => {
    const i = k++;
    return { id: `n${i}`, project: P, projectContext: P, thought: thought(), role: i % 3 ? 'actor' : 'critic', tags: i % 4 ? [] : ['perf'], artifacts: [], parents: [], createdAt: new Date((t += 1000)).toISOString(), ...extra };
  };
  const logger = (): Logger => ({ debug: () => undefined, info: () => undefined, error: () => undefined, warn: (msg) => void warnings.push(msg), child: () => logger() });
  const open = (root = dir, flush = 24) => createNdjsonKnowledgeStore(root, { logger: logger() as never, clock: new ManualClock(), searchFlush: { nodes: flush } });
  const projectDir = (root = dir) => path.join(root, 'projects', P);
  const manifest = () => JSON.parse(fs.readFileSync(path.join(projectDir(), SEARCH_DIR, MANIFEST_FILE), 'utf8')) as IndexManifest;

  const QUERIES: Array<Record<string, unknown>> = [
    { query: 'retry' },
    { query: 'cache OR parser' },
    { query: '"budget queue"' },
    { query: 'note -backoff' },
    { query: 'lat*' },
    { query: 'lantern ledger' },
    { query: 'quorum', role: 'critic' },
    { query: 'worker', tags: ['perf'] },
    { query: 'zyzzyva', includeDeleted: true },
    { query: 'rare7' },
    { query: 'rare1*' },
    { query: 'rare2* OR lantern', includeDeleted: true },
    { query: 'quix* OR retry', includeDeleted: true },
    { query: 'rare3 OR rare30 retry' },
    { query: 'retry OR cache', limit: 7, pages: 4 },
  ];
  /** Every query's answer: hits with scores (and deleted marks), total, each page of a cursor walk. */
  const answers = async (s: NdjsonKnowledgeStore) => {
    const out: unknown[] = [];
    for (const q of QUERIES) {
      const { pages = 1, limit = 40, ...rest } = q as { pages?: number; limit?: number; query: string };
      let cursor: string | undefined;
      for (let p = 0; p < pages; p++) {
        const r = await new SearchNodes(s).execute({ projectContext: P, limit, ...rest, ...(cursor ? { cursor } : {}) } as never);
        out.push({ q: rest.query, p, total: r.total, hits: r.hits.map((h) => `${h.id}:${h.score}${h.deleted ? ':deleted' : ''}`) });
        if (!r.nextCursor) break;
        cursor = r.nextCursor;
      }
    }
    return out;
  };
  /** The same over an index built from scratch: graph and deleted records copied to a data dir of their own. */
  const fresh = async () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-follow-fresh-'));
    try {
      fs.mkdirSync(projectDir(copy), { recursive: true });
      for (const f of ['knowledge_graph.ndjson', 'knowledge_graph.deleted.ndjson']) {
        const from = path.join(projectDir(), f);
        if (fs.existsSync(from)) fs.copyFileSync(from, path.join(projectDir(copy), f));
      }
      return await answers(createNdjsonKnowledgeStore(copy, { clock: new ManualClock() }));
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  };
  const live = () => fs.readFileSync(path.join(projectDir(), 'knowledge_graph.ndjson'), 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { id: string }).id);
  const deletedIds = () => {
    const f = path.join(projectDir(), 'knowledge_graph.deleted.ndjson');
    return fs.existsSync(f) ? fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { nodeId: string }).nodeId) : [];
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-follow-'));
    warnings = [];
    k = 0;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a graph with CRLF lines, blank lines, a malformed line and no last newline: each rewrite followed, searches equal a fresh index', async () => {
    seed = 4242;
    fs.mkdirSync(projectDir(), { recursive: true });
    const nodes = Array.from({ length: 90 }, () => node());
    // A word only n7 holds: once n7 is deleted, a prefix finding it scores the deleted node as a fresh index does.
    nodes[7]!.thought += ' quixotic';
    const lines = nodes.map((n, i) => JSON.stringify(n) + (i % 7 === 3 ? '\r\n' : '\n') + (i % 11 === 5 ? '\n\n' : '') + (i === 40 ? '{"torn": \n' : ''));
    fs.writeFileSync(path.join(projectDir(), 'knowledge_graph.ndjson'), lines.join('').replace(/\n$/, ''));
    const a = open(dir, 1_000_000);
    // The first search builds the index (one segment); each rewrite below is followed.
    expect(await answers(a)).toEqual(await fresh());
    const del = new DeleteNodes(a, new ManualClock(), silentLogger);
    const steps: Array<() => Promise<unknown>> = [
      () => del.execute({ projectContext: P, nodeIds: ['n3', 'n7', 'n89'], reason: 'test' }),
      () => a.withLock(P, (g) => g.updateNodes(new Set(['n10', 'n41']), (n) => ({ ...n, thought: `${n.thought} ledger rewritten` }))),
      () => a.withLock(P, (g) => g.append([node(), node()])),
      () => del.execute({ projectContext: P, nodeIds: ['n5', 'n90'], reason: 'test' }),
      () => new RestoreNodes(a, silentLogger).execute({ projectContext: P, nodeIds: ['n3'] }),
      () => del.execute({ projectContext: P, nodeIds: ['n20', 'n21', 'n22'], reason: 'test' }),
    ];
    warnings = [];
    const first = manifest().segments[0]!.file;
    for (const [i, step] of steps.entries()) {
      await step();
      if (i === 0) {
        // The delete marked the one segment (written by the build) instead of writing it again.
        expect(manifest().segments.map((x) => [x.file, x.deleted?.length])).toEqual([[first, 3]]);
      }
      const expected = await fresh();
      expect([i, await answers(a)]).toEqual([i, expected]);
      expect([i, await answers(open())]).toEqual([i, expected]);
    }
    expect(warnings.filter((w) => w.includes('rebuilt'))).toEqual([]);
  });

  it.each([
    ['a deleted ordinal past the segment', (r: IndexManifest['segments'][number]) => (r.deleted = [...(r.deleted ?? []), r.docs + 5])],
    ['deleted ordinals out of order', (r: IndexManifest['segments'][number]) => (r.deleted = [3, 1])],
    ['an offset map of odd length', (r: IndexManifest['segments'][number]) => (r.shift = [...(r.shift ?? []), 7])],
    ['a header range the file does not have', (r: IndexManifest['segments'][number]) => (r.header = [r.start + 1, r.end])],
  ])('a manifest whose marks do not fit its segment (%s) is rebuilt, never trusted', async (_what, damage) => {
    seed = 99;
    const a = open(dir, 1_000_000);
    await a.withLock(P, (g) => g.append(Array.from({ length: 60 }, () => node())));
    await a.flushSearchIndexes();
    await new DeleteNodes(a, new ManualClock(), silentLogger).execute({ projectContext: P, nodeIds: ['n4', 'n30'], reason: 'test' });
    const m = manifest();
    expect(m.segments[0]!.deleted).toEqual([4, 30]);
    damage(m.segments[0]!);
    fs.writeFileSync(path.join(projectDir(), SEARCH_DIR, MANIFEST_FILE), JSON.stringify(m) + '\n');
    warnings = [];
    // Another process: the manifest read again (its file's identity changed), the segments loaded from their files.
    segmentCache.clear();
    const expected = await fresh();
    expect(await answers(open())).toEqual(expected);
    expect(warnings.filter((w) => w.includes('rebuilt')).length).toBe(1);
    expect(manifest().segments.some((x) => x.deleted)).toBe(false);
  });

  it.each([1, 2, 3])('seed %i: random adds, deletes, restores and rewrites search as a fresh index does', async (s0) => {
    seed = s0 * 7919;
    const a = open();
    const del = new DeleteNodes(a, new ManualClock(), silentLogger);
    const restore = new RestoreNodes(a, silentLogger);
    // A first graph: 120 nodes, some with parents (children a delete rewrites), two summaries over segments.
    for (let b = 0; b < 6; b++) await a.withLock(P, (g) => g.append(Array.from({ length: 20 }, () => node())));
    const summary = (segment: string[]) => node({ role: 'summary', summarizedSegment: segment, thought: `ledger overview ${segment.join(' ')}` });
    await a.withLock(P, (g) => g.append([summary(['n3', 'n17', 'n40']), summary(['n55', 'n70', 'n90', 'n101'])]));
    let followed = 0;
    let carried = 0;
    let marked = 0;
    for (let step = 0; step < 24; step++) {
      const before = manifest();
      const op = rand();
      const ids = live();
      const plain = ids.filter((id) => !id.startsWith('c'));
      let rewrote = false;
      if (op < 0.2) {
        await a.withLock(P, (g) => g.append(Array.from({ length: 1 + Math.floor(rand() * 30) }, () => node())));
      } else if (op < 0.55) {
        // delete_nodes of one to three leaves (summaries recalculated when they cover one).
        const targets = [...new Set(Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(plain)))];
        const r = await del.execute({ projectContext: P, nodeIds: targets, recalculateSummaries: rand() < 0.7, reason: 'test' });
        rewrote = r.success;
      } else if (op < 0.7 && deletedIds().length) {
        await restore.execute({ projectContext: P, nodeIds: [pick(deletedIds())] });
      } else if (op < 0.85) {
        // A rewrite of a few nodes' text in place (what a recalculation writes).
        const targets = new Set(Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(plain)));
        await a.withLock(P, (g) => g.updateNodes(targets, (n) => ({ ...n, thought: `${n.thought} ledger ${pick(words)} rewritten` })));
        rewrote = true;
      } else {
        // A delete whose node has children: their lines are rewritten (parents filtered) in the same pass.
        const parent = pick(plain);
        const child = node({ parents: [parent] });
        await a.withLock(P, (g) => g.append([child, node()]));
        const found = await a.reader(P).findByIds(new Set([parent]));
        await a.withLock(P, (g) => g.deleteWithBackup([{ nodeId: parent, project: P, reason: null, timestamp: new Date(t).toISOString(), nodeData: found.get(parent)! }]));
        rewrote = true;
      }
      const after = manifest();
      // A flush merged a marked segment: the written segment carries its deleted documents as marks.
      const old = new Set(before.segments.map((x) => x.file));
      if (!rewrote && after.segments.some((x) => !old.has(x.file) && x.deleted)) carried++;
      if (rewrote && after.generation > before.generation) {
        // Followed: some segment file of the index before is still named (a rebuild writes every segment anew).
        const files = new Set(before.segments.map((x) => x.file));
        if (after.segments.some((x) => files.has(x.file))) followed++;
        if (after.segments.some((x) => x.deleted || x.shift)) marked++;
      }
      const expected = await fresh();
      expect([step, await answers(a)]).toEqual([step, expected]);
      expect([step, await answers(open())]).toEqual([step, expected]);
    }
    expect(followed).toBeGreaterThan(2);
    expect(marked).toBeGreaterThan(2);
    expect(carried).toBeGreaterThan(0);
    // Never rebuilt with a warning (a rebuild logs why; a followed rewrite logs nothing).
    expect(warnings.filter((w) => w.includes('rebuilt'))).toEqual([]);
  }, 120_000);
});
