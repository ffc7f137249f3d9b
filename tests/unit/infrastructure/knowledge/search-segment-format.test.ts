import { SegmentBuilder } from '../../../../src/modules/knowledge/infrastructure/search-index/segment-builder';
import { LoadedSegment } from '../../../../src/modules/knowledge/infrastructure/search-index/segment-reader';
import { BLOCK_POSTINGS, weightedTf } from '../../../../src/modules/knowledge/infrastructure/search-index/segment-format';
import { VarintReader } from '../../../../src/modules/knowledge/infrastructure/search-index/varint';
import { FIELD_WEIGHTS, idf, termScore, textTerms } from '../../../../src/modules/knowledge/domain/search';
import type { StoredKnowledgeNode } from '../../../../src/modules/knowledge/domain';

/**
 * The segment layout of format 2: postings in blocks, decoded without positions, and block-max bounds that no
 * document of a block exceeds, whatever the idf and the average length.
 */
const WORDS = 'alpha beta gamma delta retry cache budget parser queue lock'.split(' ');

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
  const pick = () => WORDS[Math.floor(r() * WORDS.length)]!;
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
  const all = nodes(1500, 7);
  const b = new SegmentBuilder(0, 0);
  all.forEach((n, i) => b.add(n, i * 100, 99));
  const seg = LoadedSegment.fromBuffer(b.encode(), 'test');

  it('decodes every term whole (ordinals and positions) as it was added, over several blocks', async () => {
    const want = all.map(expected);
    let multiBlock = 0;
    for (const term of seg.header.terms) {
      if (term.startsWith('\u0000')) continue;
      const idx = seg.termIndex(term);
      const p = await seg.postings(undefined, idx);
      const ords = want.flatMap((m, i) => (m.has(term) ? [i] : []));
      expect([...p.ords]).toEqual(ords);
      expect(ords.map((_, k) => [...p.pos.subarray(p.posStart[k]!, p.posStart[k + 1]!)])).toEqual(ords.map((o) => want[o]!.get(term)));
      if (seg.blockTo(idx) - seg.blockFrom(idx) > 2) multiBlock++;
    }
    expect(multiBlock).toBeGreaterThan(5);
  });

  it('decodes a block alone (no positions) to its ordinals and weighted term frequencies', async () => {
    const idx = seg.termIndex('retri');
    const whole = await seg.postings(undefined, idx);
    const b1 = seg.blockFrom(idx) + 1;
    const [from, to] = seg.docRange(idx, b1, b1 + 1);
    const ords = new Int32Array(BLOCK_POSTINGS);
    const wtfs = new Float64Array(BLOCK_POSTINGS);
    const n = seg.decodeDocs(idx, b1, new VarintReader(await seg.read(undefined, from, to)), ords, wtfs, 0);
    expect(n).toBe(BLOCK_POSTINGS);
    expect([...ords]).toEqual([...whole.ords.subarray(BLOCK_POSTINGS, 2 * BLOCK_POSTINGS)]);
    for (let k = 0; k < n; k++) {
      const o = ords[k]!;
      const ps = [...whole.pos.subarray(whole.posStart[BLOCK_POSTINGS + k]!, whole.posStart[BLOCK_POSTINGS + k + 1]!)];
      const t = ps.filter((p) => p < seg.thoughtEndAt(o)).length;
      const g = ps.filter((p) => p >= seg.thoughtEndAt(o) && p < seg.tagsEndAt(o)).length;
      expect(wtfs[k]).toBe(weightedTf(t, g, ps.length - t - g));
    }
  });

  it("no document's score passes its block's bound, for any idf and average length", async () => {
    const over: string[] = [];
    for (const term of seg.header.terms) {
      const idx = seg.termIndex(term);
      const p = await seg.postings(undefined, idx);
      for (const [termIdf, avg] of [[idf(1500, seg.df(idx)), 3], [0.01, 40], [7, 0.5], [1, 12.345]] as const) {
        for (let b = seg.blockFrom(idx); b < seg.blockTo(idx); b++) {
          const bound = seg.blockBound(b, termIdf, avg);
          const k0 = (b - seg.blockFrom(idx)) * BLOCK_POSTINGS;
          for (let k = k0; k < Math.min(p.ords.length, k0 + BLOCK_POSTINGS); k++) {
            const o = p.ords[k]!;
            let wtf = 0;
            for (let q = p.posStart[k]!; q < p.posStart[k + 1]!; q++) {
              const pos = p.pos[q]!;
              wtf += pos < seg.thoughtEndAt(o) ? FIELD_WEIGHTS.thought : pos < seg.tagsEndAt(o) ? FIELD_WEIGHTS.tags : FIELD_WEIGHTS.artifacts;
            }
            if (!(termScore(termIdf, wtf, seg.weightedLengthOf(o), avg) <= bound)) over.push(`${term} node ${o} block ${b}`);
          }
        }
      }
    }
    expect(over).toEqual([]);
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
