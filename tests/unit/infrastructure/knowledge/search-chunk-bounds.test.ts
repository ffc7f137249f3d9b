import { SegmentBuilder } from '../../../../src/modules/knowledge/infrastructure/search-index/segment-builder';
import { LoadedSegment } from '../../../../src/modules/knowledge/infrastructure/search-index/segment-reader';
import { SlotData } from '../../../../src/modules/knowledge/infrastructure/search-index/slot-data';
import { CHUNK_DOCS } from '../../../../src/modules/knowledge/infrastructure/search-index/segment-format';
import { evaluateQuery, type SearchFilters, type SearchSegment } from '../../../../src/modules/knowledge/infrastructure/search-index/index-search';
import { parseSearchQuery } from '../../../../src/modules/knowledge/domain/search';
import type { KnowledgeRole, StoredKnowledgeNode } from '../../../../src/modules/knowledge/domain';

/**
 * Chunk bounds (chunk-bounds.ts): a search that only counts the chunks whose bound cannot beat the page returns the
 * very pages — hits, order, scores to the bit, totals — of the same search scoring every match. Random segments of a
 * few thousand nodes (several chunks each, terms dense and sparse, many exact duplicates so scores tie across chunks
 * and segments, a segment cut by a watermark, a segment of deleted nodes), random queries, filters and page sizes,
 * paged through with `after` as cursors do.
 */
const WORDS = 'retry backoff cache parser budget queue lock stream index schema latency worker'.split(' ');
const RARE = Array.from({ length: 40 }, (_, i) => `rare${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
const ROLES: KnowledgeRole[] = ['actor', 'critic', 'summary'];

function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function corpus(seed: number) {
  const r = prng(seed);
  // Topics and lengths drift every 700 nodes, so a word is frequent in some chunks and rare in others, and chunks
  // differ in their shortest node: bounds that can skip some chunks and not others.
  let era = 0;
  const word = () => (r() < 0.15 ? RARE[Math.floor(r() * RARE.length)]! : WORDS[(era + Math.min(WORDS.length - 1, Math.floor(WORDS.length * r() ** 1.7))) % WORDS.length]!);
  // Newer nodes are shorter and repeat their words more: their scores are higher, so once a page holds them the
  // older chunks' bounds fall below it (and a random mix of eras keeps the other cases).
  const words = (n: number): string => {
    const out: string[] = [];
    for (let k = 0; k < n; k++) out.push(k > 0 && r() < Math.min(0.5, era * 0.07) ? out[k - 1]! : word());
    return out.join(' ');
  };
  const made: StoredKnowledgeNode[] = [];
  const node = (i: number): StoredKnowledgeNode => {
    era = Math.floor(i / 700);
    // A third are copies of an earlier node (same words, same length): their scores tie.
    const copy = made.length > 10 && r() < 0.35 ? made[Math.floor(made.length - 1 - r() * Math.min(made.length, 2000))]! : undefined;
    const n: StoredKnowledgeNode = {
      id: `n${i}`,
      project: 'p',
      projectContext: 'p',
      thought: copy ? copy.thought : words(1 + Math.max(0, 14 - 2 * era) + Math.floor(r() * r() * 10)),
      role: ROLES[Math.floor(r() * r() * 3)]!,
      tags: copy ? copy.tags : r() < 0.3 ? [word()] : [],
      artifacts: !copy && r() < 0.1 ? [{ name: `${word()}.md`, path: `docs/${word()}.md` }] : (copy?.artifacts ?? []),
      parents: [],
      createdAt: new Date(1_700_000_000_000 + i * 60_000).toISOString(),
    };
    made.push(n);
    return n;
  };
  const segment = (from: number, count: number): LoadedSegment => {
    const b = new SegmentBuilder(0, 0);
    for (let i = 0; i < count; i++) b.add(node(from + i), (from + i) * 100, 99);
    return LoadedSegment.fromBuffer(b.encode(), `seg-${from}`);
  };
  const sizes = [1 + Math.floor(r() * 2500), 1500 + Math.floor(r() * 3000), 2 * CHUNK_DOCS + Math.floor(r() * 2000), 300 + Math.floor(r() * 900)];
  const segments: SearchSegment[] = [];
  let base = 0;
  for (const size of sizes) {
    segments.push({ seg: segment(base, size), base, limit: size });
    base += size;
  }
  // The newest segment cut by a watermark (a cursor's), and deleted nodes (negative ordinals).
  const last = segments[segments.length - 1]!;
  last.limit = Math.max(1, Math.floor(last.limit * (0.5 + r() / 2)));
  segments.push({ seg: segment(base, 1 + Math.floor(r() * 1500)), base: -1, limit: 0 });
  segments[segments.length - 1]!.limit = segments[segments.length - 1]!.seg.docCount;
  return { segments, r, word };
}

describe('search chunk bounds', () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    it(`seed ${seed}: pruned pages equal every match scored (ties, filters, deleted nodes, watermarks, cursors)`, async () => {
      const { segments, r, word } = corpus(seed);
      const shapes = [
        () => word(),
        () => `${word()} ${word()}`,
        () => `${word()} ${word()} ${word()}`,
        () => `"${word()} ${word()}"`,
        () => `${word()} OR ${word()}`,
        () => `${word()} -${word()}`,
        () => `${word().slice(0, 3)}*`,
        () => `${word()} OR "${word()} ${word()}" -${word()}`,
      ];
      let compared = 0;
      let skipped = 0;
      let ties = 0;
      for (let q = 0; q < 60; q++) {
        const query = parseSearchQuery(shapes[Math.floor(r() * shapes.length)]!());
        const filters: SearchFilters = {};
        if (r() < 0.2) filters.role = ROLES[Math.floor(r() * 3)]!;
        if (r() < 0.15) filters.sinceMs = 1_700_000_000_000 + Math.floor(r() * 4000) * 60_000;
        const inDeleted = r() < 0.3;
        const segs = inDeleted ? segments : segments.slice(0, -1);
        const capacity = 1 + Math.floor(r() * 12);
        let after: { score: number; ord: number } | undefined;
        for (let page = 0; page < 4; page++) {
          const pruned = await evaluateQuery(query, filters, segs, { capacity, after });
          const full = await evaluateQuery(query, filters, segs, { capacity, after, prune: false });
          expect(pruned.total).toBe(full.total);
          expect(pruned.hits.map((h) => [h.ord, h.score])).toEqual(full.hits.map((h) => [h.ord, h.score]));
          compared++;
          skipped += pruned.chunks.counted;
          if (full.hits.some((h, i) => i > 0 && h.score === full.hits[i - 1]!.score)) ties++;
          if (pruned.hits.length < capacity) break;
          const lastHit = pruned.hits[pruned.hits.length - 1]!;
          after = { score: lastHit.score, ord: lastHit.ord };
        }
      }
      expect(compared).toBeGreaterThan(100);
      // The bounds did skip chunks (else this would compare nothing), and ties met the page's worst.
      expect(skipped).toBeGreaterThan(20);
      expect(ties).toBeGreaterThan(5);
    });
  }

  it('a chunk whose bound only ties the page is skipped when older, scored when its nodes rank newer (deleted nodes)', async () => {
    const same = (i: number, thought: string): StoredKnowledgeNode => ({
      id: `x${i}`, project: 'p', projectContext: 'p', thought, role: 'actor', tags: [], artifacts: [], parents: [], createdAt: new Date(1_700_000_000_000 + i).toISOString(),
    });
    const build = (count: number, at: number, thought: (i: number) => string) => {
      const b = new SegmentBuilder(0, 0);
      for (let i = 0; i < count; i++) b.add(same(at + i, thought(i)), (at + i) * 100, 99);
      return LoadedSegment.fromBuffer(b.encode(), `seg-${at}`);
    };
    // Live: three copies of the best node among others; deleted: 3,000 copies of it (three chunks, each bounded by
    // exactly its nodes' score). The page of 10 is the three live ones, then the deleted ones of highest ordinal
    // (-1 - d: the first chunk's), which the last chunks visited hold.
    const live = build(2000, 0, (i) => (i % 700 === 5 ? 'retry retry backoff' : 'retry backoff cache parser budget queue'));
    const deleted = build(3000, 10_000, () => 'retry retry backoff');
    const segs: SearchSegment[] = [
      { seg: live, base: 0, limit: live.docCount },
      { seg: deleted, base: -1, limit: deleted.docCount },
    ];
    const query = parseSearchQuery('retry');
    const pruned = await evaluateQuery(query, {}, segs, { capacity: 10 });
    const full = await evaluateQuery(query, {}, segs, { capacity: 10, prune: false });
    expect(pruned.hits.map((h) => h.ord)).toEqual([1405, 705, 5, -1, -2, -3, -4, -5, -6, -7]);
    expect(pruned.hits.map((h) => [h.ord, h.score])).toEqual(full.hits.map((h) => [h.ord, h.score]));
    expect(pruned.total).toBe(5000);
    // Twelve copies in the newest live chunk: the page is theirs; the older live chunks (below it, or tying it while
    // older) are only counted; the deleted ones tying it are scored (their ordinals grow as they are visited).
    const hot = build(1500, 20_000, (i) => (i >= 1200 && i % 25 === 0 ? 'retry retry backoff' : 'retry backoff cache parser budget queue'));
    const again: SearchSegment[] = [{ seg: hot, base: 5000, limit: hot.docCount }, ...segs];
    const page = await evaluateQuery(query, {}, again, { capacity: 10 });
    expect(page.hits.map((h) => h.ord)).toEqual([1475, 1450, 1425, 1400, 1375, 1350, 1325, 1300, 1275, 1250].map((o) => 5000 + o));
    expect(page.hits.map((h) => [h.ord, h.score])).toEqual((await evaluateQuery(query, {}, again, { capacity: 10, prune: false })).hits.map((h) => [h.ord, h.score]));
    expect(page.chunks).toEqual({ scored: 1 + 3, counted: 1 + 2 });
  });

  it('a chunk is bounded by its highest impact, not its highest weighted frequency: one thought occurrence outranks three tag ones', async () => {
    const b = new SegmentBuilder(0, 0);
    // Two chunks; in the older one node 5 holds `kiwi` once in its thought (impact 0.6079), every other node three
    // times in its tags (3 × 0.4 = 1.2 weighted, but impact 0.3310). The newer chunk's nodes fill the page first.
    for (let i = 0; i < 2 * CHUNK_DOCS; i++) {
      const thought = i === 5 ? 'kiwi once' : `other ${i}`;
      b.add({ id: `k${i}`, project: 'p', projectContext: 'p', thought, role: 'actor', tags: i === 5 ? [] : ['kiwi', 'kiwi', 'kiwi'], artifacts: [], parents: [], createdAt: new Date(1_700_000_000_000 + i).toISOString() }, i * 100, 99);
    }
    const seg = LoadedSegment.fromBuffer(b.encode(), 'seg-kiwi');
    const segs: SearchSegment[] = [{ seg, base: 0, limit: seg.docCount }];
    const pruned = await evaluateQuery(parseSearchQuery('kiwi'), {}, segs, { capacity: 1 });
    expect(pruned.hits.map((h) => h.ord)).toEqual([5]);
    expect(pruned.hits).toEqual((await evaluateQuery(parseSearchQuery('kiwi'), {}, segs, { capacity: 1, prune: false })).hits);
    expect(pruned.chunks).toEqual({ scored: 2, counted: 0 });
  });

  it('a dense term stores, per chunk of 1,024 nodes, the code of highest impact among its nodes', () => {
    const { segments } = corpus(9);
    let checked = 0;
    for (const { seg } of segments) {
      for (let idx = 0; idx < seg.header.terms.length; idx++) {
        if (!seg.isDense(idx)) continue;
        const s = new SlotData().load(seg, undefined, idx);
        const chunks = Math.ceil(seg.docCount / CHUNK_DOCS);
        expect(s.chunkBest!.length).toBe(chunks);
        for (let k = 0; k < chunks; k++) {
          let best = 0;
          for (let d = k * CHUNK_DOCS; d < Math.min(seg.docCount, (k + 1) * CHUNK_DOCS); d++) {
            const c = s.codes![d]!;
            if (c !== 0 && (best === 0 || s.impact[c]! > s.impact[best]!)) best = c;
          }
          expect(s.chunkBest![k]).toBe(best);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
