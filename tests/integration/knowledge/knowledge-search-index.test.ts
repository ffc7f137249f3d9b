import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Logger } from '../../../src/kernel/logger';
import { createNdjsonKnowledgeStore, type NdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { SearchNodes } from '../../../src/modules/knowledge/application/use-cases/search-nodes';
import type { StoredKnowledgeNode } from '../../../src/modules/knowledge/domain';
import { INDEX_FORMAT, MANIFEST_FILE, SEARCH_DIR, type IndexManifest } from '../../../src/modules/knowledge/infrastructure/search-index/search-index';
import { SegmentBuilder } from '../../../src/modules/knowledge/infrastructure/search-index/segment-builder';
import { segmentCache } from '../../../src/modules/knowledge/infrastructure/search-index/segment-files';
import { parseNode } from '../../../src/modules/knowledge/infrastructure/ndjson-passes';

/**
 * The file search index is never trusted: whatever state a crash or a hand edit leaves between the graph and its
 * index, a search answers what a search over a freshly built index answers, and says in the log that it rebuilt.
 */
describe('knowledge search index on files', () => {
  let dir: string;
  let store: NdjsonKnowledgeStore;
  let warnings: Array<{ msg: string; fields?: Record<string, unknown> }>;
  const P = 'idx';
  let t = Date.parse('2026-11-01T00:00:00.000Z');
  const node = (id: string, thought: string): StoredKnowledgeNode => ({
    id,
    project: P,
    projectContext: P,
    thought,
    role: 'actor',
    tags: [],
    artifacts: [],
    parents: [],
    createdAt: new Date((t += 1000)).toISOString(),
  });
  const projectDir = () => path.join(dir, 'projects', P);
  const indexDir = () => path.join(projectDir(), SEARCH_DIR);
  const graph = () => path.join(projectDir(), 'knowledge_graph.ndjson');
  const search = async (query: string, extra: Record<string, unknown> = {}) =>
    (await new SearchNodes(store).execute({ projectContext: P, query, limit: 100, ...extra })).hits.map((h) => [h.id, h.score, h.snippet]);
  /** The same search over an index built from scratch. */
  const fresh = async (query: string) => {
    fs.rmSync(indexDir(), { recursive: true, force: true });
    return search(query);
  };

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-search-index-'));
    warnings = [];
    // The store logs through a child naming the project: its fields join each entry's.
    const logger = (bound: Record<string, unknown> = {}): Logger => ({
      debug: () => undefined,
      info: () => undefined,
      error: () => undefined,
      warn: (msg, fields) => void warnings.push({ msg, fields: { ...bound, ...fields } }),
      child: (more) => logger({ ...bound, ...more }),
    });
    // Every add writes its tail as a segment here (the segment and manifest writes, merges); the tail kept in memory
    // between flushes has its own tests (knowledge-search-tail.test.ts).
    store = createNdjsonKnowledgeStore(dir, { logger: logger(), searchFlush: { nodes: 1 } });
    await store.withLock(P, (g) => g.append([node('n1', 'alpha retry budget'), node('n2', 'beta retry storm'), node('n3', 'gamma backoff')]));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps an index beside the graph, with a format version, extended by every add', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(indexDir(), MANIFEST_FILE), 'utf8'));
    expect(manifest.format).toBe(INDEX_FORMAT);
    expect(manifest.docs).toBe(3);
    expect(manifest.graph.size).toBe(fs.statSync(graph()).size);
    await store.withLock(P, (g) => g.append([node('n4', 'delta retry')]));
    expect(JSON.parse(fs.readFileSync(path.join(indexDir(), MANIFEST_FILE), 'utf8')).docs).toBe(4);
    expect((await search('retry')).map((h) => h[0]).sort()).toEqual(['n1', 'n2', 'n4']);
    expect(warnings).toEqual([]);
  });

  it('a graph appended without its index (a crash between the two writes) is found and the index rebuilt', async () => {
    fs.appendFileSync(graph(), JSON.stringify(node('n9', 'retry after the crash')) + '\n');
    const got = await search('retry');
    expect(got.map((h) => h[0])).toContain('n9');
    expect(warnings.map((w) => w.msg)).toEqual(['knowledge search index rebuilt from the graph']);
    expect(got).toEqual(await fresh('retry'));
  });

  it('every state a crash can leave (orphan segment, leftover temp file, no manifest, old segments) searches like a fresh index', async () => {
    const expected = await fresh('retry OR backoff');
    // A segment written whose manifest never was (and a temp file of a write cut short).
    fs.writeFileSync(path.join(indexDir(), 'seg-1-0-99.bin'), 'partial');
    fs.writeFileSync(path.join(indexDir(), '.manifest.json.tmp-123'), '{');
    expect(await search('retry OR backoff')).toEqual(expected);
    // Files the manifest does not name are harmless, and removed by the next write.
    await store.withLock(P, (g) => g.append([node('n5', 'epsilon')]));
    expect(fs.readdirSync(indexDir()).filter((f) => f === 'seg-1-0-99.bin' || f.startsWith('.'))).toEqual([]);
    const after = await search('retry OR backoff');
    expect(after).toEqual(await fresh('retry OR backoff'));
    // No manifest at all.
    fs.rmSync(path.join(indexDir(), MANIFEST_FILE));
    expect(await search('retry OR backoff')).toEqual(after);
    // Another format.
    const m = JSON.parse(fs.readFileSync(path.join(indexDir(), MANIFEST_FILE), 'utf8'));
    fs.writeFileSync(path.join(indexDir(), MANIFEST_FILE), JSON.stringify({ ...m, format: 0 }));
    expect(await search('retry OR backoff')).toEqual(after);
  });

  it('an index of format 3 (dense terms without their chunks\' best codes) is detected and rebuilt as format 6, with a log line', async () => {
    const expected = await search('"retry budget" OR backoff');
    const m = JSON.parse(fs.readFileSync(path.join(indexDir(), MANIFEST_FILE), 'utf8')) as IndexManifest;
    // What a format-3 build left: its manifest and its segments say 3.
    fs.writeFileSync(path.join(indexDir(), MANIFEST_FILE), JSON.stringify({ ...m, format: 3 }));
    for (const s of m.segments) {
      const file = path.join(indexDir(), s.file);
      const bytes = fs.readFileSync(file);
      bytes.writeUInt32LE(3, 4);
      fs.writeFileSync(file, bytes);
    }
    segmentCache.clear();
    expect(await search('"retry budget" OR backoff')).toEqual(expected);
    expect(warnings.map((w) => [w.msg, w.fields?.project, w.fields?.reason])).toEqual([['knowledge search index rebuilt from the graph', P, `index format 3, expected ${INDEX_FORMAT}`]]);
    expect(INDEX_FORMAT).toBe(6);
    const rebuilt = JSON.parse(fs.readFileSync(path.join(indexDir(), MANIFEST_FILE), 'utf8')) as IndexManifest;
    expect(rebuilt.format).toBe(6);
    // Segment format 5: the chunks' best codes by impact (index format 6).
    for (const s of rebuilt.segments) expect(fs.readFileSync(path.join(indexDir(), s.file)).readUInt32LE(4)).toBe(5);
  });

  it('an index of format 5 (segments of format 4: chunks\' best codes by weighted frequency, BM25F\'s) is never trusted: rebuilt, with a log line, scoring as a fresh index', async () => {
    // One thought occurrence outranks three tag ones now (impact), not under the weighted frequency (3 × 0.4 > 1).
    await store.withLock(P, (g) => g.append([node('w1', 'kiwi once'), { ...node('w2', 'nothing here'), tags: ['kiwi', 'kiwi', 'kiwi'] }]));
    const expected = await search('kiwi');
    expect(expected.map((h) => h[0])).toEqual(['w1', 'w2']);
    const m = JSON.parse(fs.readFileSync(path.join(indexDir(), MANIFEST_FILE), 'utf8')) as IndexManifest;
    fs.writeFileSync(path.join(indexDir(), MANIFEST_FILE), JSON.stringify({ ...m, format: 5 }));
    for (const s of m.segments) {
      const file = path.join(indexDir(), s.file);
      const bytes = fs.readFileSync(file);
      bytes.writeUInt32LE(4, 4);
      fs.writeFileSync(file, bytes);
    }
    segmentCache.clear();
    warnings.length = 0;
    expect(await search('kiwi')).toEqual(expected);
    expect(warnings.map((w) => [w.msg, w.fields?.reason])).toEqual([['knowledge search index rebuilt from the graph', `index format 5, expected ${INDEX_FORMAT}`]]);
    const rebuilt = JSON.parse(fs.readFileSync(path.join(indexDir(), MANIFEST_FILE), 'utf8')) as IndexManifest;
    for (const s of rebuilt.segments) expect(fs.readFileSync(path.join(indexDir(), s.file)).readUInt32LE(4)).toBe(5);
  });

  it('an index of format 4 (non-ASCII words unstemmed) is rebuilt, and then finds them by their stem as PostgreSQL does', async () => {
    await store.withLock(P, (g) => g.append([node('n4', 'Øresunds bridges')]));
    const m = JSON.parse(fs.readFileSync(path.join(indexDir(), MANIFEST_FILE), 'utf8')) as IndexManifest;
    fs.writeFileSync(path.join(indexDir(), MANIFEST_FILE), JSON.stringify({ ...m, format: 4 }));
    segmentCache.clear();
    warnings.length = 0;
    expect((await search('øresund')).map((h) => h[0])).toEqual(['n4']);
    expect(warnings.map((w) => w.fields?.reason)).toEqual([`index format 4, expected ${INDEX_FORMAT}`]);
  });

  it('a damaged manifest loses its generation, yet the rebuilt index never reuses a segment name (processes cache segments by name)', async () => {
    const before = fs.readdirSync(indexDir()).filter((f) => f.startsWith('seg-'));
    fs.writeFileSync(path.join(indexDir(), MANIFEST_FILE), '{"format": 2, "segm');
    fs.appendFileSync(graph(), JSON.stringify(node('n7', 'retry once more')) + '\n');
    expect((await search('retry')).map((h) => h[0]).sort()).toEqual(['n1', 'n2', 'n7']);
    const manifest = JSON.parse(fs.readFileSync(path.join(indexDir(), MANIFEST_FILE), 'utf8')) as IndexManifest;
    expect(manifest.generation).toBeGreaterThan(Math.max(...before.map((f) => Number(f.split('-')[1]))));
    expect(manifest.segments.map((s) => s.file).filter((f) => before.includes(f))).toEqual([]);
  });

  it('a damaged segment or a hand-edited graph is detected and rebuilt, never trusted', async () => {
    const seg = fs.readdirSync(indexDir()).find((f) => f.startsWith('seg-'))!;
    const file = path.join(indexDir(), seg);
    fs.truncateSync(file, fs.statSync(file).size - 3);
    // This process holds the small segments it wrote in memory; another process (or this one restarted) reads the file.
    segmentCache.clear();
    expect((await search('retry')).map((h) => h[0]).sort()).toEqual(['n1', 'n2']);
    expect(warnings.map((w) => w.fields?.reason)).toEqual([expect.stringContaining(seg)]);
    // A hand edit of the graph in place (same size, other words).
    const text = fs.readFileSync(graph(), 'utf8').replace('alpha retry budget', 'alpha hello budget');
    fs.writeFileSync(graph(), text);
    expect((await search('retry')).map((h) => h[0])).toEqual(['n2']);
    expect((await search('hello')).map((h) => h[0])).toEqual(['n1']);
    expect(warnings.length).toBeGreaterThanOrEqual(2);
  });

  it('a 50 MB thought is indexed and searched in bounded time, its snippet short', async () => {
    const big = 'lorem ipsum '.repeat(4_400_000) + 'needle at the end';
    fs.appendFileSync(graph(), JSON.stringify(node('big', big)) + '\n');
    const got = await new SearchNodes(store).execute({ projectContext: P, query: 'needle' });
    expect(got.hits.map((h) => h.id)).toEqual(['big']);
    expect(got.hits[0]!.snippet.length).toBeLessThan(400);
    expect(got.hits[0]!.thought.length).toBeLessThanOrEqual(200);
    expect((await search('retry')).map((h) => h[0]).sort()).toEqual(['n1', 'n2']);
  }, 120_000);

  /** The segment the index would build from the graph's bytes [start, end) by reading and tokenizing them. */
  const segmentOfGraph = (start: number, end: number): Buffer => {
    const bytes = fs.readFileSync(graph());
    const b = new SegmentBuilder(start, end);
    for (let at = start; at < end; ) {
      let nl = bytes.indexOf(10, at);
      if (nl < 0 || nl > end) nl = end;
      const node = nl > at ? parseNode(bytes.toString('utf8', at, nl)) : undefined;
      if (node) b.add(node, at, nl - at);
      at = nl + 1;
    }
    return b.encode();
  };

  it('segments merged from postings and appends indexed from memory are byte for byte what reading the graph builds', async () => {
    let k = 0;
    const rich = (i: number): StoredKnowledgeNode => ({
      ...node(`r${k++}`, ['Retry the parser cache', 'café naïve résumé', 'the and of', 'budget-queue v2.3', '日本語 text'][i % 5]! + ` n${i}`),
      tags: i % 3 ? ['perf', `t${i % 4}`, 'perf'] : [],
      artifacts: i % 4 ? [{ name: `file${i}.ts`, path: `src/dir${i % 2}/file${i}.ts` } as never] : [],
      role: i % 2 ? 'actor' : 'critic',
    });
    for (let i = 0; i < 70; i++) {
      const batch = Array.from({ length: 1 + (i % 9) }, (_, j) => rich(i * 10 + j));
      await store.withLock(P, (g) => g.append(batch));
      // A line torn by a crash (no newline): the next write starts on a fresh line and reindexes.
      if (i === 33) fs.appendFileSync(graph(), '{"id":"torn","thought":"retry');
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(indexDir(), MANIFEST_FILE), 'utf8')) as IndexManifest;
    // Merges did happen (some segment holds more than one append's nodes, well beyond the rebuild at the torn line).
    expect(manifest.segments.some((s) => s.docs > 40)).toBe(true);
    expect(manifest.segments.length).toBeLessThan(16);
    for (const s of manifest.segments) {
      expect([s.file, fs.readFileSync(path.join(indexDir(), s.file)).equals(segmentOfGraph(s.start, s.end))]).toEqual([s.file, true]);
    }
    // Scores too, exactly: BM25's average length comes from integer word counts, whatever the segments.
    const got = await search('retry OR cafe OR budget');
    expect(got).toHaveLength(100);
    expect(got).toEqual(await fresh('retry OR cafe OR budget'));
  });

  it('many small adds keep few segments (merged as they accumulate) and the same answers', async () => {
    for (let i = 0; i < 40; i++) await store.withLock(P, (g) => g.append([node(`m${i}`, `merge retry ${i}`)]));
    const manifest = JSON.parse(fs.readFileSync(path.join(indexDir(), MANIFEST_FILE), 'utf8'));
    expect(manifest.segments.length).toBeLessThan(12);
    expect(manifest.docs).toBe(43);
    const got = await search('merge retry');
    expect(got).toHaveLength(40);
    expect(got).toEqual(await fresh('merge retry'));
  });
});
