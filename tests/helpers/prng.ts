/**
 * mulberry32: a small, fast, deterministic PRNG returning numbers in [0, 1). Tests that draw random operations seed
 * it so a failing run can be replayed. (bench/fixtures/knowledge-graph.js keeps its own copy: bench is plain JS.)
 */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
