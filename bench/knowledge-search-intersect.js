// The search cache's intersection alone (pg-search-intersect.ts through dist/, no database): three dense lists shaped
// like the 1,000,000-node bench's `retri`, `cach`, `budget` (each word's occurrences in a node drawn as in
// bench/fixtures/knowledge-graph.js — 14 draws from 32 words, ~359,000 seqs a list, ~46,000 common — and its impact
// a ts_rank level per occurrence count), the first page (want 11) and a later one (a cursor 100 matches in), and
// `retry cache -budget` (one dense exclusion), a phrase (a sparse pair list driving two dense words): the median of
// intersect() with its per-word and per-byte bounds (the search's path, pg-search-dense-top.ts, and the driver's)
// beside the walks it replaced (per-word bounds only, pg-search-dense-seq-order.ts; a driver without bounds),
// interleaved in the same run. The ratio is the search's ÷ the old (lower is better). BENCH_INTERSECT_ROUNDS
// (default 101).
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { ROOT, stats, report } = require('./lib.js');
const { prng } = require('./fixtures/knowledge-graph.js');

const dist = (p) => require(path.join(ROOT, 'dist', p));
const { intersect } = dist('modules/knowledge/infrastructure/postgres/pg-search-intersect.js');
const { seqOrderTop } = dist('modules/knowledge/infrastructure/postgres/pg-search-dense-seq-order.js');

const NODES = 1_000_000;
const ROUNDS = Number(process.env.BENCH_INTERSECT_ROUNDS || 101);
// ts_rank of a word occurring 1…5 times in a ~100-character thought.
const LEVELS = [0, 0.0607927, 0.0991032, 0.1213, 0.1382, 0.1517];

function list(rand) {
  const seqs = [];
  const impacts = [];
  for (let s = 1; s <= NODES; s++) {
    let k = 0;
    for (let d = 0; d < 14; d++) if (rand() < 1 / 32) k++;
    if (k === 0) continue;
    seqs.push(s);
    impacts.push(LEVELS[Math.min(k, LEVELS.length - 1)]);
  }
  return { seqs: Int32Array.from(seqs), impacts: Float32Array.from(impacts) };
}

/** The first index whose seq is ≥ `seq`. */
function seek(a, seq) {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const rand = prng(23);
const [retri, cach, budget] = [list(rand), list(rand), list(rand)];
const three = { scored: [{ list: retri, idf: 0.97 }, { list: cach, idf: 1.02 }, { list: budget, idf: 0.99 }], required: [], excluded: [], upTo: NODES, want: 11 };
// A phrase's pair list: ~10% of the nodes holding both words (`"retry backoff"`: 13,252 seqs at 1,000,000 nodes).
const pair = Int32Array.from([...retri.seqs].filter((s) => cach.seqs[seek(cach.seqs, s)] === s && rand() < 0.1));
const all = intersect({ ...three, want: 101 });
const at = all.top[100];
const queries = [
  ['three words, first page', three],
  ['three words, a cursor 100 in', { ...three, after: { score: at.score, ord: BigInt(at.seq) } }],
  [`phrase, a pair list of ${pair.length} driving two words, first page`, { scored: three.scored.slice(0, 2), required: [pair], excluded: [], upTo: NODES, want: 11 }],
  ['two words, one excluded, first page', { scored: three.scored.slice(0, 2), required: [], excluded: [budget.seqs], upTo: NODES, want: 11 }],
];

const OLD = { dense: seqOrderTop, driverBounds: false };
const same = (a, b) => JSON.stringify([a.top, a.total]) === JSON.stringify([b.top, b.total]);
for (const [name, q] of queries) {
  const best = intersect(q);
  const seq = intersect(q, OLD);
  if (!same(best, seq) || (best.afterCount > 0) !== (seq.afterCount > 0)) throw new Error(`${name}: the walks disagree`);
  for (let i = 0; i < 10; i++) (intersect(q), intersect(q, OLD));
  const before = [];
  const after = [];
  for (let r = 0; r < ROUNDS; r++) {
    // Alternate which walk goes first, so neither always runs on the other's warm caches.
    const runs = r % 2 ? [[after, undefined], [before, OLD]] : [[before, OLD], [after, undefined]];
    for (const [out, walk] of runs) {
      const t = performance.now();
      walk ? intersect(q, walk) : intersect(q);
      out.push(performance.now() - t);
    }
  }
  report('knowledge-search-intersect', `${name} (${best.total} matches, lists of ${retri.seqs.length}): the search's walk (impact buckets, byte bounds) ÷ the per-word walk`, stats(after).median, stats(before).median, 'ms', { rounds: ROUNDS });
}
