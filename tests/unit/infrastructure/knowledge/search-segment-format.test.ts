import { SegmentBuilder } from '../../../../src/modules/knowledge/infrastructure/search-index/segment-builder';
import { LoadedSegment } from '../../../../src/modules/knowledge/infrastructure/search-index/segment-reader';
import { BLOCK_POSTINGS, DENSE_SHARE, bigramTerm } from '../../../../src/modules/knowledge/infrastructure/search-index/segment-format';
import { VarintReader } from '../../../../src/modules/knowledge/infrastructure/search-index/varint';
import { termImpact, textTerms } from '../../../../src/modules/knowledge/domain/search';
import type { StoredKnowledgeNode } from '../../../../src/modules/knowledge/domain';

/**
 * The segment layout of format 5 (4's, its chunks' best codes by impact): dense terms (a bitmap and a code per document; their chunks' best codes are tested
 * in search-chunk-bounds.test.ts) and sparse ones (postings in blocks, decoded without positions) decode to what was
 * added; bigram terms are exactly the neighbouring words.
 */
const WORDS = 'alpha beta gamma delta retry cache budget parser queue lock'.split(' ');
const RARE = Array.from({ length: 300 }, (_, i) => `rare${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
const MID = Array.from({ length: 30 }, (_, i) => `mid${String.fromCharCode(97 + i % 26)}${String.fromCharCode(97 + Math.floor(i / 26))}`);

function rand(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function nodes(count: number, seed: number): StoredKnowledgeNode[] {
  const r = rand(seed);
  const pick = () => {
    const x = r();
    return x < 0.3 ? RARE[Math.floor(r() * RARE.length)]! : x < 0.5 ? MID[Math.floor(r() * MID.length)]! : WORDS[Math.floor(r() * WORDS.length)]!;
  };
  return Array.from({ length: count }, (_, i) => ({
    id: `n${i}`,
    project: 'p',
    projectContext: 'p',
    thought: Array.from({ length: 1 + Math.floor(r() * 30) }, pick).join(' '),
    role: 'actor',
    tags: r() < 0.5 ? [pick(), pick()] : [],
    artifacts: r() < 0.3 ? [{ name: `${pick()}.md`, path: `docs/${pick()}-${pick()}.md` }] : [],
    parents: [],
    createdAt: new Date(1_700_000_000_000 + i * 1000).toISOString(),
  }));
}

/** Positions per term of a node, as the builder numbers them (thought, then tags, then artifacts). */
function expected(node: StoredKnowledgeNode): Map<string, number[]> {
  const thought = textTerms(node.thought, 0);
  const tags = textTerms(node.tags.join(' '), thought.length);
  const names = node.artifacts.map((a) => a.name);
  const paths = node.artifacts.map((a) => a.path);
  const arts = textTerms([...names, ...paths].join(' '), thought.length + tags.length);
  const out = new Map<string, number[]>();
  for (const part of [thought, tags, arts]) part.terms.forEach((t, i) => out.set(t, [...(out.get(t) ?? []), part.positions[i]!]));
  return out;
}

describe('search segment format', () => {
  const all = nodes(4000, 7);
  const b = new SegmentBuilder(0, 0);
  all.forEach((n, i) => b.add(n, i * 100, 99));
  const seg = LoadedSegment.fromBuffer(b.encode(), 'test');

  it('decodes every term whole (ordinals and positions) as it was added, dense and sparse, over several blocks', async () => {
    const want = all.map(expected);
    let multiBlock = 0;
    let dense = 0;
    for (const term of seg.header.terms) {
      if (term.startsWith('\u0000') || term.startsWith('\u0001')) continue;
      const idx = seg.termIndex(term);
      const p = await seg.postings(undefined, idx);
      const ords = want.flatMap((m, i) => (m.has(term) ? [i] : []));
      expect([...p.ords]).toEqual(ords);
      expect(ords.map((_, k) => [...p.pos.subarray(p.posStart[k]!, p.posStart[k + 1]!)])).toEqual(ords.map((o) => want[o]!.get(term)));
      expect(seg.isDense(idx)).toBe(ords.length * DENSE_SHARE >= all.length);
      if (seg.isDense(idx)) dense++;
      else if (seg.blockTo(idx) - seg.blockFrom(idx) > 2) multiBlock++;
    }
    expect(dense).toBeGreaterThan(5);
    expect(multiBlock).toBeGreaterThan(5);
  });

  it('decodes a sparse block alone (no positions) to its ordinals and the impacts of its per-field counts', async () => {
    const term = seg.header.terms.find((t) => !t.startsWith('\u0000') && !seg.isDense(seg.termIndex(t)) && seg.blockTo(seg.termIndex(t)) - seg.blockFrom(seg.termIndex(t)) > 2)!;
    const idx = seg.termIndex(term);
    const whole = await seg.postings(undefined, idx);
    const b1 = seg.blockFrom(idx) + 1;
    const [from, to] = seg.docRange(idx, b1, b1 + 1);
    const ords = new Int32Array(BLOCK_POSTINGS);
    const impacts = new Float64Array(BLOCK_POSTINGS);
    const n = seg.decodeDocs(idx, b1, new VarintReader(await seg.read(undefined, from, to)), ords, impacts, 0);
    expect(n).toBe(BLOCK_POSTINGS);
    expect([...ords]).toEqual([...whole.ords.subarray(BLOCK_POSTINGS, 2 * BLOCK_POSTINGS)]);
    for (let k = 0; k < n; k++) {
      const o = ords[k]!;
      const ps = [...whole.pos.subarray(whole.posStart[BLOCK_POSTINGS + k]!, whole.posStart[BLOCK_POSTINGS + k + 1]!)];
      const t = ps.filter((p) => p < seg.thoughtEndAt(o)).length;
      const g = ps.filter((p) => p >= seg.thoughtEndAt(o) && p < seg.tagsEndAt(o)).length;
      expect(impacts[k]).toBe(termImpact(t, g, ps.length - t - g));
    }
  });

  it('a bigram term is there for every two dense terms that are neighbours somewhere, with exactly those documents and no positions', async () => {
    const want = new Map<string, Set<number>>();
    all.forEach((node, i) => {
      const at = new Map<number, string>();
      for (const [t, ps] of expected(node)) for (const p of ps) at.set(p, t);
      const dense = (t: string) => seg.termIndex(t) >= 0 && seg.isDense(seg.termIndex(t));
      for (const [p, t] of at) {
        const next = at.get(p + 1);
        if (next === undefined || !dense(t) || !dense(next)) continue;
        const key = bigramTerm(t, next);
        if (!want.has(key)) want.set(key, new Set());
        want.get(key)!.add(i);
      }
    });
    const got = seg.header.terms.filter((t) => t.startsWith('\u0001'));
    expect(got.length).toBeGreaterThan(50);
    expect(got.sort()).toEqual([...want.keys()].sort());
    let dense = 0;
    for (const t of got) {
      const p = await seg.postings(undefined, seg.termIndex(t));
      expect([...p.ords]).toEqual([...want.get(t)!].sort((a, b) => a - b));
      expect(p.pos.length).toBe(0);
      if (seg.isDense(seg.termIndex(t))) dense++;
    }
    expect(dense).toBeGreaterThan(0);
  });

  it(`a term in 1/${DENSE_SHARE} of the documents is dense, in one fewer sparse, and both decode whole`, async () => {
    const docs = DENSE_SHARE * 16;
    const nb = new SegmentBuilder(0, 0);
    for (let i = 0; i < docs; i++) {
      const words = ['filler'];
      if (i % DENSE_SHARE === 3) words.push('edge', 'edge');
      if (i % DENSE_SHARE === 5 && i > DENSE_SHARE) words.push('near');
      nb.add({ ...all[0]!, id: `b${i}`, thought: words.join(' '), tags: [], artifacts: [] }, i * 10, 9);
    }
    const small = LoadedSegment.fromBuffer(nb.encode(), 'boundary');
    const edge = small.termIndex('edg');
    const near = small.termIndex('near');
    expect([small.df(edge), small.isDense(edge)]).toEqual([docs / DENSE_SHARE, true]);
    expect([small.df(near), small.isDense(near)]).toEqual([docs / DENSE_SHARE - 1, false]);
    const e = await small.postings(undefined, edge);
    expect([...e.ords]).toEqual(Array.from({ length: docs / DENSE_SHARE }, (_, k) => k * DENSE_SHARE + 3));
    expect([...e.pos.subarray(e.posStart[0]!, e.posStart[1]!)]).toEqual([1, 2]);
  });

  it('a segment whose block table does not fill its postings is refused', () => {
    const buf = b.encode();
    // The header's block count one short: the directory no longer adds up.
    const len = buf.readUInt32LE(8);
    const header = JSON.parse(buf.subarray(12, 12 + len).toString('utf8'));
    const text = JSON.stringify({ ...header, blocks: header.blocks - 1 });
    const damaged = Buffer.concat([buf.subarray(0, 8), Buffer.alloc(4), Buffer.from(text), buf.subarray(12 + len)]);
    damaged.writeUInt32LE(Buffer.byteLength(text), 8);
    expect(() => LoadedSegment.fromBuffer(damaged, 'damaged')).toThrow(/damaged/);
  });
});
