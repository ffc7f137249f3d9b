import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createNdjsonKnowledgeStore, type NdjsonKnowledgeStore } from '../../../src/modules/knowledge/infrastructure/ndjson-knowledge-store';
import { SearchNodes, type SearchNodesInput } from '../../../src/modules/knowledge/application/use-cases/search-nodes';
import { artifactText } from '../../../src/modules/knowledge/infrastructure/search-index/segment-builder';
import { LoadedSegment } from '../../../src/modules/knowledge/infrastructure/search-index/segment-reader';
import { idf, parseSearchQuery, termImpact, textTerms, type SearchQuery } from '../../../src/modules/knowledge/domain/search';
import type { DeletedNodeRecord, StoredKnowledgeNode } from '../../../src/modules/knowledge/domain';

/**
 * The files' search (dense terms as bitmaps and codes, sparse ones as blocks, phrases through bigrams, filters on
 * both) against a search written from the definition: every node tokenized and every match scored as PostgreSQL
 * scores it — Σ idf × ts_rank impact over the positive terms in code point order (a prefix's terms those of the live
 * nodes), idf over the live nodes — ranked by score then newest first. Random graphs of a few thousand nodes (added in batches of random sizes, so several
 * segments of every size, terms dense in some and sparse in others, some nodes deleted), random queries of every kind
 * with random filters, paged through with cursors: the same hits in the same order with the same scores (to the bit), the exact total.
 */
const WORDS = (
  'retry backoff cache parser budget queue lock stream index schema latency worker batch review split module fixture ' +
  'graph node edge parent child memory buffer append delete restore summary plan test file store query'
)
  .split(' ')
  // A long tail: words in a few percent of the nodes, dense in some segments and sparse in others.
  .concat(Array.from({ length: 60 }, (_, i) => `tail${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`));
const TAGS = ['perf', 'bug', 'api', 'db', 'ui'];
const ROLES = ['actor', 'critic', 'summary'] as const;

function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Doc {
  node: StoredKnowledgeNode;
  ord: number;
  deleted: boolean;
  /** term → [thought, tags, artifacts] counts and positions */
  terms: Map<string, { counts: [number, number, number]; positions: number[] }>;
}

function docOf(node: StoredKnowledgeNode, ord: number, deleted: boolean): Doc {
  const thought = textTerms(node.thought, 0);
  const tags = textTerms(node.tags.join(' '), thought.length);
  const arts = textTerms(artifactText(node), thought.length + tags.length);
  const terms: Doc['terms'] = new Map();
  [thought, tags, arts].forEach((part, field) =>
    part.terms.forEach((t, i) => {
      let e = terms.get(t);
      if (!e) terms.set(t, (e = { counts: [0, 0, 0], positions: [] }));
      e.counts[field]!++;
      e.positions.push(part.positions[i]!);
    }),
  );
  return { node, ord, deleted, terms };
}

function itemTerms(item: SearchQuery['groups'][number]['items'][number], vocabulary: readonly string[]): string[] {
  return item.kind === 'prefix' ? vocabulary.filter((t) => t.startsWith(item.term)) : item.kind === 'word' ? [item.term] : item.terms;
}

function matchesItem(d: Doc, item: SearchQuery['groups'][number]['items'][number], vocabulary: readonly string[]): boolean {
  if (item.kind !== 'phrase') return itemTerms(item, vocabulary).some((t) => d.terms.has(t));
  const lists = item.terms.map((t) => d.terms.get(t)?.positions);
  if (lists.some((l) => !l)) return false;
  return lists[0]!.some((p) => lists.every((l, i) => l!.includes(p + item.offsets[i]!)));
}

/** Every match of the search, scored from the definition, ranked. */
function reference(docs: readonly Doc[], input: { query: string; role?: string; tags?: string[]; since?: string; until?: string; includeDeleted?: boolean }) {
  const q = parseSearchQuery(input.query);
  const searched = docs.filter((d) => input.includeDeleted || !d.deleted);
  const vocabulary = [...new Set(searched.flatMap((d) => [...d.terms.keys()]))].sort();
  const live = docs.filter((d) => !d.deleted);
  const liveVocabulary = [...new Set(live.flatMap((d) => [...d.terms.keys()]))].sort();
  const codePoints = (t: string) => [...t].map((c) => c.codePointAt(0)!);
  const byCodePoint = (a: string, b: string) => {
    const [x, y] = [codePoints(a), codePoints(b)];
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  };
  const positive = [...new Set(q.groups.filter((g) => !g.negated).flatMap((g) => g.items.flatMap((it) => itemTerms(it, liveVocabulary))))].sort(byCodePoint);
  const idfs = new Map(positive.map((t) => [t, idf(live.length, live.filter((d) => d.terms.has(t)).length)]));
  const since = input.since ? Date.parse(input.since) : undefined;
  const until = input.until ? Date.parse(input.until) : undefined;
  const hits = searched
    .filter((d) => {
      const at = Date.parse(d.node.createdAt);
      if (input.role && d.node.role !== input.role) return false;
      if (!(input.tags ?? []).every((t) => d.node.tags.includes(t))) return false;
      if ((since !== undefined && at < since) || (until !== undefined && at > until)) return false;
      return q.groups.every((g) => g.items.some((it) => matchesItem(d, it, vocabulary)) !== g.negated);
    })
    .map((d) => {
      let score = 0;
      for (const t of positive) {
        const e = d.terms.get(t);
        score += e ? idfs.get(t)! * termImpact(...e.counts) : 0;
      }
      return { id: d.node.id, score, ord: d.ord, deleted: d.deleted };
    });
  return hits.sort((a, b) => b.score - a.score || b.ord - a.ord);
}

describe('knowledge search on files: its pages equal scoring every match from the definition', () => {
  let dir: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function graph(seed: number) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wg-search-prune-'));
    // Segments on disk and a tail in memory (written as a segment every 150 nodes).
    const store: NdjsonKnowledgeStore = createNdjsonKnowledgeStore(dir, { searchFlush: { nodes: 150 } });
    const r = prng(seed);
    // Zipf-like: a few words in most nodes (many blocks), most in a few.
    const word = () => WORDS[Math.min(WORDS.length - 1, Math.floor(WORDS.length * r() ** 2.5))]!;
    let n = 0;
    const make = (): StoredKnowledgeNode => {
      const i = n++;
      return {
        id: `n${i}`,
        project: 'p',
        projectContext: 'p',
        thought: Array.from({ length: 2 + Math.floor(r() * 25) }, () => (r() < 0.08 ? 'the' : word())).join(' '),
        role: ROLES[Math.floor(r() * r() * 3)]!,
        tags: TAGS.filter(() => r() < 0.25),
        artifacts: r() < 0.2 ? [{ name: `${word()}.md`, path: `docs/${word()}/${word()}.md` }] : [],
        parents: [],
        createdAt: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 60_000).toISOString(),
      };
    };
    const addBatches = async (count: number) => {
      for (let left = count; left > 0; ) {
        const size = Math.min(left, 1 + Math.floor(r() * r() * 400));
        await store.withLock('p', (g) => g.append(Array.from({ length: size }, make)));
        left -= size;
      }
    };
    const deleteSome = async (count: number, of: number) => {
      const victims = Array.from({ length: count }, () => `n${Math.floor(r() * of)}`);
      const found = await store.reader('p').findByIds(new Set(victims));
      const records: DeletedNodeRecord[] = [...found.values()].map((node) => ({ nodeId: node.id, project: 'p', reason: null, timestamp: '2026-06-01T00:00:00.000Z', nodeData: node }));
      await store.withLock('p', (g) => g.deleteWithBackup(records));
    };
    await addBatches(1200);
    // Some deleted (the graph rewritten: the segments mark them, search-index.ts afterRewrite), then more adds (merged
    // with the marked segments, which carry their marks), then again (segments after the merged one).
    await deleteSome(60, 1200);
    await addBatches(1800);
    await deleteSome(30, 3000);
    await addBatches(600);
    const projectDir = path.join(dir, 'projects', 'p');
    const lines = (f: string) => fs.readFileSync(path.join(projectDir, f), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const docs = [
      ...lines('knowledge_graph.ndjson').map((node, i) => docOf(node, i, false)),
      ...lines('knowledge_graph.deleted.ndjson').map((rec, i) => docOf(rec.nodeData, -1 - i, true)),
    ];
    const refs = JSON.parse(fs.readFileSync(path.join(projectDir, 'knowledge_graph.search', 'manifest.json'), 'utf8')).segments as Array<{ file: string; deleted?: number[] }>;
    // What the index holds: word terms dense in some segments and sparse in others, bigrams.
    const kinds = { dense: 0, sparse: 0, bigrams: 0 };
    for (const ref of refs) {
      const file = path.join(projectDir, 'knowledge_graph.search', ref.file);
      const seg = LoadedSegment.fromBuffer(fs.readFileSync(file), file);
      seg.header.terms.forEach((t, i) => {
        if (t.startsWith('\u0001')) kinds.bigrams++;
        else if (!t.startsWith('\u0000')) kinds[seg.isDense(i) ? 'dense' : 'sparse']++;
      });
    }
    return { store, docs, r, word, segments: refs.length, marked: refs.filter((x) => x.deleted).length, kinds };
  }

  function randomQuery(r: () => number, word: () => string, docs: readonly Doc[]) {
    // Two to five words of a node's thought: one bigram, or several and their positions checked ("the" leaves gaps).
    const phrase = () => {
      const words = docs[Math.floor(r() * docs.length)]!.node.thought.split(' ');
      const at = Math.floor(r() * Math.max(1, words.length - 1));
      return `"${words.slice(at, at + 2 + Math.floor(r() * r() * 4)).join(' ')}"`;
    };
    const shapes = [
      () => word(),
      () => `${word()} ${word()}`,
      () => `${word()} ${word()} ${word()}`,
      () => phrase(),
      () => `${word().slice(0, 2)}*`,
      () => `${word()} OR ${word()}`,
      () => `${word()} -${word()}`,
      () => `${word()} ${word()} OR ${word()} -${phrase()}`,
      () => `${phrase()} ${word()}`,
      () => `${phrase()} OR ${phrase()}`,
      () => `${word()} -${word()} -${word()}`,
    ];
    const input: Partial<SearchNodesInput> & { query: string } = { query: shapes[Math.floor(r() * shapes.length)]!() };
    if (r() < 0.2) input.role = ROLES[Math.floor(r() * 3)]!;
    if (r() < 0.2) input.tags = [TAGS[Math.floor(r() * TAGS.length)]!];
    if (r() < 0.15) input.since = docs[Math.floor(r() * docs.length)]!.node.createdAt;
    if (r() < 0.15) input.until = docs[Math.floor(r() * docs.length)]!.node.createdAt;
    if (input.since && input.until && input.since > input.until) [input.since, input.until] = [input.until, input.since];
    if (r() < 0.2) input.includeDeleted = true;
    input.limit = 1 + Math.floor(r() * 15);
    return input;
  }

  for (const seed of [11, 12]) {
    it(`seed ${seed}: 120 random searches, three pages each`, async () => {
      const { store, docs, r, word, segments, marked, kinds } = await graph(seed);
      expect(segments).toBeGreaterThan(2);
      // Deleted nodes held by segments as marks (the deletes were followed, not rebuilt).
      expect(marked).toBeGreaterThan(0);
      expect(kinds.dense).toBeGreaterThan(50);
      expect(kinds.sparse).toBeGreaterThan(50);
      expect(kinds.bigrams).toBeGreaterThan(50);
      const uc = new SearchNodes(store);
      const mismatches: string[] = [];
      let compared = 0;
      for (let i = 0; i < 120; i++) {
        const input = randomQuery(r, word, docs);
        let want: ReturnType<typeof reference>;
        try {
          want = reference(docs, input);
        } catch {
          continue; // a query with nothing to look for (only stopwords): refused by both
        }
        let cursor: string | undefined;
        for (let page = 0; page < 3; page++) {
          const got = await uc.execute({ projectContext: 'p', ...input, ...(cursor ? { cursor } : {}) } as SearchNodesInput);
          const expected = want.slice(page * input.limit!, (page + 1) * input.limit!);
          const label = `${JSON.stringify(input)} page ${page}`;
          if (got.hits.map((h) => h.id).join() !== expected.map((h) => h.id).join()) mismatches.push(`${label}: ${got.hits.map((h) => h.id).join()} vs ${expected.map((h) => h.id).join()}`);
          else if (got.hits.some((h, k) => h.score !== expected[k]!.score || (h.deleted ?? false) !== expected[k]!.deleted)) mismatches.push(`${label}: scores`);
          if (!got.totalExact || got.total !== want.length) mismatches.push(`${label}: total ${got.total} (${got.totalExact}) vs ${want.length}`);
          compared++;
          if (!got.nextCursor) {
            if (want.length > (page + 1) * input.limit!) mismatches.push(`${label}: no next page`);
            break;
          }
          cursor = got.nextCursor;
        }
      }
      expect(mismatches).toEqual([]);
      expect(compared).toBeGreaterThan(150);
    }, 120_000);
  }
});
