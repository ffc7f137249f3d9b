import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createNdjsonKnowledgeStore, type NdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { SearchNodes } from '../../../src/modules/knowledge/application/use-cases/search-nodes';
import { DeleteNodes } from '../../../src/modules/knowledge/application/use-cases/delete-nodes';
import { ManualClock } from './support/knowledge-env';
import type { StoredKnowledgeNode } from '../../../src/modules/knowledge/domain';
import { MANIFEST_FILE, SEARCH_DIR, TAIL_FILE, type IndexManifest } from '../../../src/modules/knowledge/infrastructure/search-index/search-index';
import { SegmentBuilder } from '../../../src/modules/knowledge/infrastructure/search-index/segment-builder';
import { segmentCache } from '../../../src/modules/knowledge/infrastructure/search-index/segment-files';
import { parseNode } from '../../../src/modules/knowledge/infrastructure/ndjson-passes';
import type { Logger } from '../../../src/kernel/logger';

/**
 * A tail big enough (the policy's `background`) is written in the background: the add that reaches the policy only
 * cuts the tail, the segments are encoded in the fsync's time of the adds after it, and the add that finds them ready
 * writes them and the manifest (covering the graph to the cut) and the tail record. Meanwhile and afterwards every
 * store — a process — searches exactly what a freshly built index answers, and the segments are byte for byte what
 * indexing those graph bytes builds.
 */
describe('knowledge search index tail written in the background', () => {
  let dir: string;
  let warnings: string[];
  const P = 'bg';
  let t = Date.parse('2026-11-01T00:00:00.000Z');
  const words = ['retry', 'backoff', 'cache', 'budget', 'parser', 'queue', 'latency', 'worker'];
  let k = 0;
  const node = (): StoredKnowledgeNode => {
    const i = k++;
    return {
      id: `b${i}`,
      project: P,
      projectContext: P,
      thought: `${words[i % 8]} ${words[(i * 3) % 8]} ${words[(i * 5 + 1) % 8]} note ${i}`,
      role: i % 3 ? 'actor' : 'critic',
      tags: i % 4 ? [] : ['perf'],
      artifacts: [],
      parents: [],
      createdAt: new Date((t += 1000)).toISOString(),
    };
  };
  const logger = (): Logger => ({ debug: () => undefined, info: () => undefined, error: () => undefined, warn: (msg) => void warnings.push(msg), child: () => logger() });
  // Written in the background from one node on (the store's default is 4,096), at 40 nodes.
  const open = (background = 1) => createNdjsonKnowledgeStore(dir, { logger: logger(), clock: new ManualClock(), searchFlush: { nodes: 40, background } });
  const indexDir = () => path.join(dir, 'projects', P, SEARCH_DIR);
  const graph = () => path.join(dir, 'projects', P, 'knowledge_graph.ndjson');
  const manifest = () => JSON.parse(fs.readFileSync(path.join(indexDir(), MANIFEST_FILE), 'utf8')) as IndexManifest;
  const record = () => JSON.parse(fs.readFileSync(path.join(indexDir(), TAIL_FILE), 'utf8').split('\n')[0]!) as { covered: number; graph: { size: number } };
  const add = (s: NdjsonKnowledgeStore, n = 5) => s.withLock(P, (g) => g.append(Array.from({ length: n }, () => node())));
  const QUERIES = ['retry', 'cache OR parser', '"budget queue"', 'note -backoff', 'lat*'];
  const all = async (s: NdjsonKnowledgeStore) =>
    Promise.all(QUERIES.map(async (q) => (await new SearchNodes(s).execute({ projectContext: P, query: q, limit: 50 })).hits.map((h) => `${h.id}:${h.score}`)));
  /** The same searches over an index built from scratch, in a store (a process) of its own. */
  const fresh = async () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-search-bg-fresh-'));
    try {
      fs.mkdirSync(path.join(copy, 'projects', P), { recursive: true });
      fs.copyFileSync(graph(), path.join(copy, 'projects', P, 'knowledge_graph.ndjson'));
      return await all(createNdjsonKnowledgeStore(copy));
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  };
  /** Each segment the manifest names, against the segment indexing its graph bytes builds. */
  const segmentsMatchGraph = (m: IndexManifest) => {
    const bytes = fs.readFileSync(graph());
    return m.segments.map((s) => {
      const b = new SegmentBuilder(s.start, s.end);
      for (let at = s.start; at < s.end; ) {
        const nl = bytes.indexOf(10, at);
        const n = parseNode(bytes.toString('utf8', at, nl));
        if (n) b.add(n, at, nl - at);
        at = nl + 1;
      }
      return [s.file, fs.readFileSync(path.join(indexDir(), s.file)).equals(b.encode())];
    });
  };

  beforeEach(() => {
    k = 0;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-search-bg-'));
    warnings = [];
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('the add reaching the policy leaves the manifest; a later add commits the segments to the cut; searches answer as a fresh index throughout', async () => {
    const a = open();
    for (let i = 0; i < 8; i++) await add(a); // 40 nodes: the tail is cut here
    const before = fs.readFileSync(path.join(indexDir(), MANIFEST_FILE));
    expect(manifest().docs).toBe(0);
    const cutAt = fs.statSync(graph()).size;
    // The cut tail is still searched: by this process (from memory) and by another (from the graph).
    expect(await all(a)).toEqual(await fresh());
    expect(await all(open())).toEqual(await fresh());
    expect(fs.readFileSync(path.join(indexDir(), MANIFEST_FILE)).equals(before)).toBe(true);
    let adds = 0;
    while (manifest().docs === 0 && adds < 8) {
      await add(a, 1);
      adds++;
      expect(await all(a)).toEqual(await fresh());
    }
    const m = manifest();
    // The segments cover the graph to the cut, exactly the 40 nodes before it; the record names the graph past it.
    expect([m.docs, m.graph.size]).toEqual([40, cutAt]);
    expect(record()).toMatchObject({ covered: cutAt, graph: { size: fs.statSync(graph()).size } });
    expect(segmentsMatchGraph(m).filter(([, same]) => !same)).toEqual([]);
    for (let i = 0; i < 3; i++) await add(a, 2);
    expect(await all(a)).toEqual(await fresh());
    segmentCache.clear();
    expect(await all(open())).toEqual(await fresh());
    // A clean shutdown writes the rest: the manifest then covers the whole graph.
    await a.flushSearchIndexes();
    expect(manifest().graph.size).toBe(fs.statSync(graph()).size);
    expect(manifest().docs).toBe(40 + adds + 6);
    expect(segmentsMatchGraph(manifest()).filter(([, same]) => !same)).toEqual([]);
    expect(await all(open())).toEqual(await fresh());
    expect(warnings).toEqual([]);
  });

  it('a tail below `background` is written by the add that reaches the policy, as before', async () => {
    const a = open(1_000);
    for (let i = 0; i < 8; i++) await add(a);
    expect(manifest()).toMatchObject({ docs: 40, graph: { size: fs.statSync(graph()).size } });
    expect(await all(a)).toEqual(await fresh());
  });

  it('a clean shutdown with a flush under way finishes it, then writes the rest', async () => {
    const a = open();
    for (let i = 0; i < 8; i++) await add(a);
    expect(manifest().docs).toBe(0);
    await a.flushSearchIndexes();
    expect(manifest()).toMatchObject({ docs: 40, graph: { size: fs.statSync(graph()).size } });
    expect(segmentsMatchGraph(manifest()).filter(([, same]) => !same)).toEqual([]);
    segmentCache.clear();
    expect(await all(open())).toEqual(await fresh());
    expect(warnings).toEqual([]);
  });

  it('a rewrite of the graph while a flush is under way drops it (the index is rebuilt); adds go on', async () => {
    const a = open();
    for (let i = 0; i < 8; i++) await add(a);
    expect(manifest().docs).toBe(0);
    await new DeleteNodes(a, new ManualClock(), logger()).execute({ projectContext: P, nodeIds: ['b1', 'b2'] });
    expect(await all(a)).toEqual(await fresh());
    for (let i = 0; i < 10; i++) await add(a);
    expect(await all(a)).toEqual(await fresh());
    segmentCache.clear();
    expect(await all(open())).toEqual(await fresh());
    expect(segmentsMatchGraph(manifest()).filter(([, same]) => !same)).toEqual([]);
  });

  it('another process that flushes first makes the under-way flush moot: it is dropped with its tail', async () => {
    const a = open();
    const b = open(1_000); // b writes its tail itself (below its background size)
    for (let i = 0; i < 8; i++) await add(a);
    expect(manifest().docs).toBe(0);
    await add(b, 3);
    await b.flushSearchIndexes();
    const m = manifest();
    expect(m.graph.size).toBe(fs.statSync(graph()).size);
    await add(a, 1);
    await add(a, 1);
    expect(manifest().segments.map((s) => s.file)).toEqual(expect.arrayContaining(m.segments.map((s) => s.file)));
    expect(await all(a)).toEqual(await fresh());
    expect(await all(b)).toEqual(await fresh());
    expect(segmentsMatchGraph(manifest()).filter(([, same]) => !same)).toEqual([]);
    expect(warnings).toEqual([]);
  });
});
