import { intersect, type Intersection } from '../../../../src/modules/knowledge/infrastructure/postgres/pg-search-intersect';
import { mergeList } from '../../../../src/modules/knowledge/infrastructure/postgres/pg-search-lists';
import { denseOf } from '../../../../src/modules/knowledge/infrastructure/postgres/pg-search-dense';
import { prng } from '../../../helpers/prng';

/**
 * The search cache's intersection (pg-search-intersect.ts) against a plain reference on random lists: dense lists
 * (bitmaps ANDed, ranks for the impacts), sparse ones (searched forward), mixed, with exclusions, unscored required
 * lists, a watermark and a cursor — the same page, total and count after the cursor. And the sync's merge.
 */

type L = { seqs: Int32Array; impacts: Float32Array };

function randomList(rand: () => number, span: number, density: number): L {
  const seqs: number[] = [];
  for (let s = 1; s <= span; s++) if (rand() < density) seqs.push(s);
  // Few distinct impacts: many ties, so the seq order decides.
  return { seqs: Int32Array.from(seqs), impacts: Float32Array.from(seqs, () => [0.0607927, 0.0991032, 0.1213, 0.0243171][Math.floor(rand() * 4)]!) };
}

function reference(q: Intersection) {
  const all = [...q.scored.map((s) => s.list.seqs), ...q.required];
  const matches: Array<{ seq: number; score: number }> = [];
  for (const seq of all[0]!) {
    if (seq > q.upTo || !all.every((a) => a.includes(seq)) || q.excluded.some((x) => x.includes(seq))) continue;
    let score = 0;
    for (const s of q.scored) score += s.idf * s.list.impacts[s.list.seqs.indexOf(seq)]!;
    matches.push({ seq, score });
  }
  matches.sort((a, b) => b.score - a.score || b.seq - a.seq);
  const after = q.after;
  const rest = after ? matches.filter((m) => m.score < after.score || (m.score === after.score && m.seq < Number(after.ord))) : matches;
  return { top: rest.slice(0, q.want), total: matches.length, afterCount: rest.length };
}

/** The intersection beside the reference: the same page and total; matches after the cursor at least the page's. */
function same(round: number, q: Intersection) {
  const got = intersect(q);
  const want = reference(q);
  expect({ round, top: got.top, total: got.total, any: got.afterCount > 0 }).toEqual({ round, top: want.top, total: want.total, any: want.afterCount > 0 });
  expect(got.afterCount).toBeGreaterThanOrEqual(got.top.length);
  expect(got.afterCount).toBeLessThanOrEqual(want.afterCount);
  return got;
}

it('equals the reference on dense, sparse and mixed lists, with exclusions, unscored lists, watermarks and cursors', () => {
  const rand = prng(29);
  let dense = 0;
  let sparse = 0;
  for (let round = 0; round < 300; round++) {
    const span = 50 + Math.floor(rand() * 3000);
    const pick = () => randomList(rand, span, rand() < 0.5 ? 0.2 + rand() * 0.6 : 0.005 + rand() * 0.02);
    const scored = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ({ list: pick(), idf: 0.5 + rand() * 3 }));
    const required = rand() < 0.3 ? [pick().seqs] : [];
    const excluded = Array.from({ length: Math.floor(rand() * 2) }, () => pick().seqs);
    for (const l of [...scored.map((s) => s.list.seqs), ...required]) (denseOf(l) ? dense++ : sparse++);
    const q: Intersection = { scored, required, excluded, upTo: rand() < 0.3 ? Math.floor(rand() * span) : span + 5, want: 1 + Math.floor(rand() * 20) };
    const first = same(round, q);
    const last = first.top[first.top.length - 1];
    if (last && first.top.length === q.want) {
      const next = { ...q, after: { score: last.score, ord: BigInt(last.seq) } };
      same(round, next);
    }
  }
  expect(dense).toBeGreaterThan(100);
  expect(sparse).toBeGreaterThan(100);
});

it('merges a sync: changed seqs out, their entries and the appended ones in; merging again changes nothing', () => {
  const list = { seqs: Int32Array.from([2, 4, 6, 8]), impacts: Float32Array.from([0.1, 0.2, 0.3, 0.4]) };
  const changed = Int32Array.from([4, 6, 9]);
  const entries = { seqs: Int32Array.from([6, 9, 12]), impacts: Float32Array.from([0.5, 0.6, 0.7]) };
  const merged = mergeList(list, changed, entries);
  expect([...merged.seqs]).toEqual([2, 6, 8, 9, 12]);
  expect([...merged.impacts!]).toEqual([0.1, 0.5, 0.4, 0.6, 0.7].map(Math.fround));
  const again = mergeList(merged, changed, entries);
  expect([...again.seqs]).toEqual([...merged.seqs]);
  expect([...again.impacts!]).toEqual([...merged.impacts!]);
  const appended = mergeList(merged, new Int32Array(0), { seqs: Int32Array.from([20]), impacts: Float32Array.from([0.9]) });
  expect([...appended.seqs]).toEqual([2, 6, 8, 9, 12, 20]);
});
