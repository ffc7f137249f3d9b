import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../../../src/kernel/logger';
import { createNdjsonKnowledgeStore, type NdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { SearchNodes } from '../../../src/modules/knowledge/application/use-cases/search-nodes';
import { DeleteNodes } from '../../../src/modules/knowledge/application/use-cases/delete-nodes';
import { RestoreNodes } from '../../../src/modules/knowledge/application/use-cases/restore-nodes';
import { ManualClock } from './support/knowledge-env';
import type { StoredKnowledgeNode } from '../../../src/modules/knowledge/domain';
import { MANIFEST_FILE, SEARCH_DIR, TAIL_FILE, type IndexManifest } from '../../../src/modules/knowledge/infrastructure/search-index/search-index';
import { SegmentBuilder } from '../../../src/modules/knowledge/infrastructure/search-index/segment-builder';
import { segmentCache } from '../../../src/modules/knowledge/infrastructure/search-index/segment-files';
import { parseNode } from '../../../src/modules/knowledge/infrastructure/ndjson-passes';

/**
 * The index's newest nodes (the graph past the manifest's segments) live in memory and are written as segments only
 * now and then: every store below stands for a process (each holds its own tail). Whatever one writes, another
 * searches exactly what a freshly built index answers; a change of the graph that no writer made is still detected.
 */
describe('knowledge search index tail (kept in memory, flushed now and then)', () => {
  let dir: string;
  let warnings: Array<{ msg: string; fields?: Record<string, unknown> }>;
  const P = 'tail';
  let t = Date.parse('2026-11-01T00:00:00.000Z');
  const words = ['retry', 'backoff', 'cache', 'budget', 'parser', 'queue', 'latency', 'worker'];
  let k = 0;
  const node = (thought?: string): StoredKnowledgeNode => {
    const i = k++;
    return {
      id: `t${i}`,
      project: P,
      projectContext: P,
      thought: thought ?? `${words[i % 8]} ${words[(i * 3) % 8]} ${words[(i * 5 + 1) % 8]} note ${i}`,
      role: i % 3 ? 'actor' : 'critic',
      tags: i % 4 ? [] : ['perf'],
      artifacts: [],
      parents: [],
      createdAt: new Date((t += 1000)).toISOString(),
    };
  };
  const logger = (): Logger => ({ debug: () => undefined, info: () => undefined, error: () => undefined, warn: (msg, fields) => void warnings.push({ msg, fields }), child: () => logger() });
  const open = (flushNodes = 1_000_000) => createNdjsonKnowledgeStore(dir, { logger: logger() as never, clock: new ManualClock(), searchFlush: { nodes: flushNodes } });
  const indexDir = () => path.join(dir, 'projects', P, SEARCH_DIR);
  const graph = () => path.join(dir, 'projects', P, 'knowledge_graph.ndjson');
  const manifest = () => JSON.parse(fs.readFileSync(path.join(indexDir(), MANIFEST_FILE), 'utf8')) as IndexManifest;
  const add = (s: NdjsonKnowledgeStore, n = 5) => s.withLock(P, (g) => g.append(Array.from({ length: n }, () => node())));
  const QUERIES = ['retry', 'cache OR parser', '"budget queue"', 'note -backoff', 'lat*'];
  const search = async (s: NdjsonKnowledgeStore, query: string, extra: Record<string, unknown> = {}) =>
    (await new SearchNodes(s).execute({ projectContext: P, query, limit: 50, ...extra })).hits.map((h) => `${h.id}:${h.score}`);
  const all = async (s: NdjsonKnowledgeStore) => Promise.all(QUERIES.map((q) => search(s, q)));
  /** The same searches over an index built from scratch, in a store (a process) of its own. */
  const fresh = async () => {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-search-tail-fresh-'));
    try {
      fs.mkdirSync(path.join(copy, 'projects', P), { recursive: true });
      fs.copyFileSync(graph(), path.join(copy, 'projects', P, 'knowledge_graph.ndjson'));
      return await Promise.all(QUERIES.map(async (q) => (await new SearchNodes(createNdjsonKnowledgeStore(copy)).execute({ projectContext: P, query: q, limit: 50 })).hits.map((h) => `${h.id}:${h.score}`)));
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  };

  beforeEach(() => {
    k = 0;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-search-tail-'));
    warnings = [];
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('an add appends to the graph and the tail in memory: the manifest stays, the tail record names the graph', async () => {
    const a = open();
    await add(a, 20);
    const m = manifest();
    const manifestBytes = fs.readFileSync(path.join(indexDir(), MANIFEST_FILE));
    for (let i = 0; i < 10; i++) await add(a);
    expect(fs.readFileSync(path.join(indexDir(), MANIFEST_FILE)).equals(manifestBytes)).toBe(true);
    expect(m.docs).toBe(0);
    const record = fs.readFileSync(path.join(indexDir(), TAIL_FILE), 'utf8');
    expect(JSON.parse(record.split('\n')[0]!).graph.size).toBe(fs.statSync(graph()).size);
    expect(fs.readdirSync(indexDir()).filter((f) => f.startsWith('seg-'))).toEqual([]);
    expect(await all(a)).toEqual(await fresh());
    expect((await search(a, 'note')).length).toBe(50);
    expect(warnings).toEqual([]);
  });

  it('processes take turns adding and searching: none hides another one\'s writes, all answer as a fresh index', async () => {
    const a = open();
    const b = open(23);
    await add(a, 3);
    for (let round = 0; round < 12; round++) {
      await add(round % 2 ? a : b, 1 + (round % 5) * 3);
      // Each searches the other's newest nodes (read from the graph's bytes), and its own.
      const fromA = await all(a);
      const fromB = await all(b);
      const expected = await fresh();
      expect(fromA).toEqual(expected);
      expect(fromB).toEqual(expected);
    }
    // b flushed its tail whenever it held 23 nodes or more: the manifest covers part of the graph, the tail the rest.
    expect(manifest().docs).toBeGreaterThan(0);
    expect(manifest().graph.size).toBeLessThan(fs.statSync(graph()).size);
    // A third process, started now, finds the same.
    expect(await all(open())).toEqual(await fresh());
    expect(warnings).toEqual([]);
  });

  it('a flush writes the tail as segments, byte for byte what indexing the graph builds, and a clean shutdown flushes the rest', async () => {
    const a = open(40);
    for (let i = 0; i < 30; i++) await add(a, 1 + (i % 7));
    const m = manifest();
    expect(m.docs).toBeGreaterThan(40);
    const bytes = fs.readFileSync(graph());
    for (const s of m.segments) {
      const b = new SegmentBuilder(s.start, s.end);
      for (let at = s.start; at < s.end; ) {
        const nl = bytes.indexOf(10, at);
        const n = parseNode(bytes.toString('utf8', at, nl));
        if (n) b.add(n, at, nl - at);
        at = nl + 1;
      }
      expect([s.file, fs.readFileSync(path.join(indexDir(), s.file)).equals(b.encode())]).toEqual([s.file, true]);
    }
    expect(m.graph.size).toBeLessThan(bytes.length);
    await a.flushSearchIndexes();
    expect(manifest().graph.size).toBe(bytes.length);
    expect(manifest().docs).toBe(bytes.toString('utf8').split('\n').filter(Boolean).length);
    segmentCache.clear();
    expect(await all(open())).toEqual(await fresh());
  });

  it('a cursor keeps paging the same ranking across a flush', async () => {
    /** Two pages of `note`, ten nodes added between them: hits and scores. */
    const pages = async (flushNodes: number) => {
      k = 0;
      t = Date.parse('2026-11-01T00:00:00.000Z');
      const s = open(flushNodes);
      await add(s, 25);
      const first = await new SearchNodes(s).execute({ projectContext: P, query: 'note', limit: 10 });
      await add(s, 10);
      const flushed = manifest().docs;
      const second = await new SearchNodes(s).execute({ projectContext: P, query: 'note', limit: 10, cursor: first.nextCursor! });
      return { flushed, hits: [...first.hits, ...second.hits].map((h) => `${h.id}:${h.score}`) };
    };
    const flushing = await pages(30); // the tail reaches 30 nodes between the pages: written as segments
    fs.rmSync(dir, { recursive: true, force: true });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-search-tail-'));
    const kept = await pages(1_000_000);
    expect([flushing.flushed, kept.flushed]).toEqual([35, 0]);
    expect(flushing.hits).toEqual(kept.hits);
    expect(new Set(flushing.hits.map((h) => h.split(':')[0])).size).toBe(20);
    expect(flushing.hits.every((h) => Number(h.split(':')[0]!.slice(1)) < 25)).toBe(true);
  });

  it('deletes, restores and summary rewrites (a rewrite of the graph) reach every process, whatever tail it holds', async () => {
    const a = open();
    const b = open();
    await add(a, 10);
    await all(b); // b holds a tail of a's ten nodes
    await new DeleteNodes(a, new ManualClock(), logger() as never).execute({ projectContext: P, nodeIds: ['t1', 't2'] });
    expect((await search(b, 'note')).map((h) => h.split(':')[0])).not.toContain('t1');
    expect(await all(b)).toEqual(await fresh());
    await add(b, 4);
    await new RestoreNodes(a, logger() as never).execute({ projectContext: P, nodeIds: ['t1'] });
    expect((await search(b, 'note')).map((h) => h.split(':')[0])).toContain('t1');
    expect(await all(a)).toEqual(await fresh());
    expect(await all(b)).toEqual(await fresh());
    expect(warnings).toEqual([]);
  });

  it('a change no writer made — inside the segments, inside the tail, a cut, an outside append — is detected and rebuilt with a log line', async () => {
    const a = open(15);
    await add(a, 20); // flushed: segments cover these
    await add(a, 6); // the tail
    const covered = manifest().graph.size;
    const edits: Array<[string, () => void]> = [
      ['a word inside the segments (same size)', () => replaceAt(graph(), 10, covered, 'retry', 'RETRX')],
      ['a word inside the tail (same size)', () => replaceAt(graph(), covered, Infinity, 'cache', 'cachy')],
      ['the graph cut inside the tail', () => fs.truncateSync(graph(), fs.statSync(graph()).size - 40)],
      ['a line appended by hand', () => fs.appendFileSync(graph(), JSON.stringify(node('retry by hand')) + '\n')],
    ];
    for (const [what, edit] of edits) {
      const b = open();
      await all(b); // another process, holding the tail in memory
      await add(a, 3);
      warnings = [];
      edit();
      // The edits keep the size or shrink it; mtime resolution is fine-grained here, but make sure it moved.
      const st = fs.statSync(graph());
      fs.utimesSync(graph(), st.atime, new Date(st.mtimeMs + 1000));
      expect([what, await all(b)]).toEqual([what, await fresh()]);
      expect([what, warnings.map((w) => w.msg)]).toEqual([what, ['knowledge search index rebuilt from the graph']]);
      expect([what, await all(a)]).toEqual([what, await fresh()]);
    }
  });

  it('a torn or foreign tail record is never trusted', async () => {
    const a = open();
    await add(a, 8);
    const file = path.join(indexDir(), TAIL_FILE);
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.replace('"covered":0', '"covered":1'));
    expect(await all(open())).toEqual(await fresh());
    expect(warnings.map((w) => w.msg)).toEqual(['knowledge search index rebuilt from the graph']);
    warnings = [];
    await add(a, 2);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').slice(0, 30));
    expect(await all(open())).toEqual(await fresh());
    expect(warnings.map((w) => w.msg)).toEqual(['knowledge search index rebuilt from the graph']);
  });
});

/** Replaces the first `from` (same length) in bytes [start, end) of `file`, in place (same inode). */
function replaceAt(file: string, start: number, end: number, from: string, to: string): void {
  const bytes = fs.readFileSync(file);
  const at = bytes.indexOf(from, start);
  if (at < 0 || at >= end) throw new Error(`no ${from} in ${start}-${end}`);
  const fd = fs.openSync(file, 'r+');
  fs.writeSync(fd, Buffer.from(to), 0, to.length, at);
  fs.closeSync(fd);
}
