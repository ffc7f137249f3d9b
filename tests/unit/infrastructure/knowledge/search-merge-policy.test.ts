import { SEGMENT_MAX_DOCS, mergeStart } from '../../../../src/modules/knowledge/infrastructure/search-index/search-index';

/** Appends batches of these sizes as the index does (a segment each, then merges while mergeStart says so). */
function simulate(batches: number[]): { segments: number[]; copiesPerNode: number; maxSegments: number } {
  let segments: number[] = [];
  let copied = 0;
  let total = 0;
  let maxSegments = 0;
  for (const b of batches) {
    segments.push(b);
    total += b;
    for (let from = mergeStart(segments); from >= 0; from = mergeStart(segments)) {
      const merged = segments.slice(from).reduce((a, x) => a + x, 0);
      copied += merged;
      segments = [...segments.slice(0, from), merged];
    }
    maxSegments = Math.max(maxSegments, segments.length);
  }
  return { segments, copiesPerNode: copied / total, maxSegments };
}

describe('search index merge policy', () => {
  let seed = 1;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const patterns: Record<string, number[]> = {
    'batches of 100 to 1M nodes': Array(10_000).fill(100),
    'single nodes': Array(20_000).fill(1),
    '1 to 9 nodes in turn': Array.from({ length: 20_000 }, (_, i) => 1 + (i % 9)),
    'random 1-100 nodes to 1M': Array.from({ length: 20_000 }, () => 1 + Math.floor(rand() * 100)),
    'skewed sizes': Array.from({ length: 5_000 }, () => 1 + Math.floor(rand() * rand() * rand() * 3_000)),
    '1 and 1,000 alternating': Array.from({ length: 4_000 }, (_, i) => (i % 2 ? 1_000 : 1)),
    'growing batches': Array.from({ length: 2_000 }, (_, i) => 1 + i),
  };

  it.each(Object.keys(patterns))('%s: O(log n) segments, each within the cap, postings copied a few times per node', (name) => {
    const batches = patterns[name]!;
    const nodes = batches.reduce((a, b) => a + b, 0);
    const { segments, copiesPerNode, maxSegments } = simulate(batches);
    expect(segments.reduce((a, b) => a + b, 0)).toBe(nodes);
    expect(segments.every((d) => d <= SEGMENT_MAX_DOCS)).toBe(true);
    // At least nodes / SEGMENT_MAX_DOCS segments are needed; a few per size class come on top.
    expect(maxSegments).toBeLessThanOrEqual(Math.ceil(nodes / SEGMENT_MAX_DOCS) + 3 * Math.ceil(Math.log(SEGMENT_MAX_DOCS) / Math.log(4)) + 4);
    expect(copiesPerNode).toBeLessThan(8);
  });

  it('merges the newest into the one before once they hold three times its nodes, and pairs two big ones', () => {
    expect(mergeStart([])).toBe(-1);
    expect(mergeStart([100])).toBe(-1);
    expect(mergeStart([100, 100])).toBe(-1);
    expect(mergeStart([100, 100, 100, 100])).toBe(0);
    expect(mergeStart([1000, 100, 100, 100])).toBe(-1);
    expect(mergeStart([1000, 100, 100, 100, 100])).toBe(1);
    expect(mergeStart([10, 1000])).toBe(0);
    expect(mergeStart([60_000, 20_000])).toBe(-1);
    expect(mergeStart([30_000, 20_000])).toBe(0);
    expect(mergeStart([40_000, 2_000, 2_000, 2_000, 2_000])).toBe(1);
    expect(mergeStart([40_000, 10_000, 10_000, 10_000])).toBe(-1);
  });
});
