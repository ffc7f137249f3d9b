import { intersect, type Intersection } from '../../../../src/modules/knowledge/infrastructure/postgres/pg-search-intersect';
import { mergeList } from '../../../../src/modules/knowledge/infrastructure/postgres/pg-search-lists';
import { denseOf } from '../../../../src/modules/knowledge/infrastructure/postgres/pg-search-dense';
import { seqOrderTop } from '../../../../src/modules/knowledge/infrastructure/postgres/pg-search-dense-seq-order';
import { prng } from '../../../helpers/prng';

/**
 * The search cache's intersection (pg-search-intersect.ts) against a plain reference on random lists: dense lists
 * (bitmaps ANDed, ranks for the impacts), sparse ones (searched forward), mixed, with exclusions, unscored required
 * lists, a watermark and a cursor — the same page, total and count after the cursor; the all-dense walk's per-word and
 * per-byte bounds (pg-search-dense-top.ts) hard: large dense lists of few impacts (equal bounds, tied scores), dense and
 * sparse exclusions, watermarks inside a word, cursors to the last match, a sparse unscored list driving, the walks without those bounds beside it. And the sync's merge.
 */

type L = { seqs: Int32Array; impacts: Float32Array };

function randomList(rand: () => number, span: number, density: number): L {
  const seqs: number[] = [];
  for (let s = 1; s <= span; s++) if (rand() < density) seqs.push(s);
  // Few distinct impacts: many ties, so the seq order decides.
  return { seqs: Int32Array.from(seqs), impacts: Float32Array.from(seqs, () => [0.0607927, 0.0991032, 0.1213, 0.0243171][Math.floor(rand() * 4)]!) };
}

function reference(q: Intersection) {
  const all = [...q.scored.map((s) => s.list.seqs), ...q.required].map((a) => new Set(a));
  const excluded = q.excluded.map((x) => new Set(x));
  const at = q.scored.map((s) => new Map(Array.from(s.list.seqs, (seq, i) => [seq, i])));
  const matches: Array<{ seq: number; score: number }> = [];
  for (const seq of q.scored.length ? q.scored[0]!.list.seqs : q.required[0]!) {
    if (seq > q.upTo || !all.every((a) => a.has(seq)) || excluded.some((x) => x.has(seq))) continue;
    let score = 0;
    q.scored.forEach((s, i) => (score += s.idf * s.list.impacts[at[i]!.get(seq)!]!));
    matches.push({ seq, score });
  }
  matches.sort((a, b) => b.score - a.score || b.seq - a.seq);
  const after = q.after;
  const rest = after ? matches.filter((m) => m.score < after.score || (m.score === after.score && m.seq < Number(after.ord))) : matches;
  return { top: rest.slice(0, q.want), total: matches.length, afterCount: rest.length };
}

/**
 * The intersection beside the reference: the same page and total; matches after the cursor at least the page's, none
 * only when the reference has none, every match with no cursor (`exact`: the seq-order walk counts only those it scored).
 */
function same(round: number, q: Intersection, got = intersect(q), want = reference(q), exact = true) {
  expect({ round, top: got.top, total: got.total, any: got.afterCount > 0 }).toEqual({ round, top: want.top, total: want.total, any: want.afterCount > 0 });
  expect(got.afterCount).toBeGreaterThanOrEqual(got.top.length);
  expect(got.afterCount).toBeLessThanOrEqual(want.afterCount);
  if (exact && !q.after) expect(got.afterCount).toBe(want.afterCount);
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

/** Large dense lists of few impact levels: many words and bytes share a bound, many matches a score. */
function denseList(rand: () => number, span: number, levels: readonly number[]): L {
  const density = 0.3 + rand() * 0.6;
  const seqs: number[] = [];
  for (let s = 1; s <= span; s++) if (rand() < density) seqs.push(s);
  return { seqs: Int32Array.from(seqs), impacts: Float32Array.from(seqs, () => levels[Math.floor(rand() * levels.length)]!) };
}

it('bounds dense scored lists by word and byte (all dense, or a sparse list driving) to the reference\'s pages and the unbounded walks\', cursors to the last match', () => {
  const rand = prng(31);
  let pages = 0;
  for (let round = 0; round < 60; round++) {
    const span = 2000 + Math.floor(rand() * 12000);
    // One to four levels (one: every match ties on the same score; equal idfs: words tie on the same bound).
    const levels = [0.0607927, 0.0991032, 0.1213, 0.0243171].slice(0, 1 + Math.floor(rand() * 4));
    const idfs = rand() < 0.5 ? [1.5] : [0.7, 1.1, 2.3];
    const scored = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ({ list: denseList(rand, span, levels), idf: idfs[Math.floor(rand() * idfs.length)]! }));
    // An unscored required list: dense (the all-dense walk) or sparse (it drives: a phrase's pair list).
    const r = rand();
    const required = r < 0.3 ? [denseList(rand, span, levels).seqs] : r < 0.6 ? [randomList(rand, span, 0.005 + rand() * 0.02).seqs] : [];
    const excluded: Int32Array[] = [];
    if (rand() < 0.4) excluded.push(randomList(rand, span, 0.2 + rand() * 0.2).seqs);
    if (rand() < 0.4) excluded.push(randomList(rand, span, 0.003 + rand() * 0.01).seqs);
    for (const s of scored) expect(denseOf(s.list.seqs)).toBeDefined();
    // A watermark inside a word (not on its last bit) or past the lists.
    const upTo = rand() < 0.5 ? 32 * Math.floor(rand() * (span / 32)) + Math.floor(rand() * 31) : span + 40;
    const want = [1, 1, 2, 11, 11, 30, 100_000][Math.floor(rand() * 7)]!;
    const q: Intersection = { scored, required, excluded, upTo, want };
    // The first pages through cursors, then cursors anywhere in the order (the last match's: nothing left after it).
    const all = reference({ ...q, want: Number.MAX_SAFE_INTEGER }).top;
    const expected = (after: Intersection['after']) => {
      const from = after ? all.findIndex((m) => m.seq === Number(after.ord)) + 1 : 0;
      return { top: all.slice(from, from + want), total: all.length, afterCount: all.length - from };
    };
    const check = (after: Intersection['after']) => {
      const page = { ...q, ...(after ? { after } : {}) };
      const e = expected(after);
      same(round, page, intersect(page, { dense: seqOrderTop, driverBounds: false }), e, false);
      pages++;
      return same(round, page, intersect(page), e);
    };
    let after: Intersection['after'];
    for (let p = 0; p < 4; p++) {
      const got = check(after);
      const last = got.top[got.top.length - 1];
      if (got.top.length < want || !last) break;
      after = { score: last.score, ord: BigInt(last.seq) };
    }
    for (const at of [Math.floor(rand() * all.length), all.length - 1 - Math.floor(rand() * 3), all.length - 1]) {
      const m = all[at];
      if (m) check({ score: m.score, ord: BigInt(m.seq) });
    }
  }
  expect(pages).toBeGreaterThan(200);
});

it('scores a later word whose bound equals the page\'s worst: a tie on it ranks by seq', () => {
  // One list, one impact: every match scores the same, every word has the same bound; the page is the highest seqs.
  const seqs = Int32Array.from({ length: 4000 }, (_, i) => i + 1);
  const list = { seqs, impacts: new Float32Array(seqs.length).fill(0.0607927) };
  const got = intersect({ scored: [{ list, idf: 1.2 }], required: [], excluded: [], upTo: 5000, want: 3 });
  expect(got.top.map((m) => m.seq)).toEqual([4000, 3999, 3998]);
  expect(got.total).toBe(4000);
});

it('leaves a match unscored only when the lists it is above its base impact in cannot reach the page: an impact just above the base counts', () => {
  // Two dense lists holding seqs 1..6000, every impact the base 0.3 but list A's at seqs 10 and 5000 (0.30001). With
  // want 1 the page's worst becomes seq 10's score: from word 128 on (where the sets are made) only matches above base
  // in A can reach it, and seq 5000 ties it with a higher seq, so it ranks first. A split that took 0.30001 for the
  // base would leave seq 5000 unscored.
  const seqs = Int32Array.from({ length: 6000 }, (_, i) => i + 1);
  const a = { seqs, impacts: Float32Array.from(seqs, (s) => (s === 10 || s === 5000 ? 0.30001 : 0.3)) };
  const b = { seqs: seqs.slice(), impacts: Float32Array.from(seqs, () => 0.3) };
  const q: Intersection = { scored: [{ list: a, idf: 1 }, { list: b, idf: 1 }], required: [], excluded: [], upTo: 7000, want: 1 };
  const got = same(0, q);
  expect(got.top.map((m) => m.seq)).toEqual([5000]);
});

it('three dense words shaped like common words (80 % at the base impact, 2.5 % at the top): pages equal scoring every match', () => {
  // The bucket vectors (base, above base, top per list) decide which matches are scored: each list's top must count,
  // wherever the page's best matches sit.
  const rand = prng(37);
  for (let round = 0; round < 24; round++) {
    const span = 8_000 + Math.floor(rand() * 16_000);
    const impact = () => {
      const r = rand();
      return r < 0.8 ? 0.0607927 : r < 0.975 ? (r < 0.9 ? 0.0759909 : 0.0827506) : r < 0.99 ? 0.0889824 : 0.0906656;
    };
    const lists = Array.from({ length: 2 + Math.floor(rand() * 2) }, () => {
      const seqs: number[] = [];
      for (let x = 1; x <= span; x++) if (rand() < 0.35 + rand() * 0.1) seqs.push(x);
      return { seqs: Int32Array.from(seqs), impacts: Float32Array.from(seqs, impact) };
    });
    const scored = lists.map((list) => ({ list, idf: 0.95 + rand() * 0.05 }));
    const want = [1, 11, 11, 30][Math.floor(rand() * 4)]!;
    const q: Intersection = { scored, required: [], excluded: [], upTo: span + 1, want };
    // The reference, by position maps (the plain one searches arrays: too slow at this size).
    const pos = scored.map((s) => new Map(Array.from(s.list.seqs, (x, i) => [x, i])));
    const all: Array<{ seq: number; score: number }> = [];
    for (const x of scored[0]!.list.seqs) {
      if (!pos.every((m) => m.has(x))) continue;
      let score = 0;
      for (const [i, s] of scored.entries()) score += s.idf * s.list.impacts[pos[i]!.get(x)!]!;
      all.push({ seq: x, score });
    }
    all.sort((a, b) => b.score - a.score || b.seq - a.seq);
    const got = intersect(q);
    expect({ round, top: got.top, total: got.total }).toEqual({ round, top: all.slice(0, want), total: all.length });
  }
});

it('a match at the top impact of only the third list is still scored past word 128', () => {
  // Three dense lists holding seqs 1..48000: base 0.3, a middle level 0.5 at seqs ≡ 3 (mod 40), and a top level of 960
  // seqs (2 %): A's at ≡ 0 and B's at ≡ 12 (mod 25) up to 24000, C's (a little higher) at ≡ 7 (mod 50) throughout — no
  // seq at two tops. The best match is C's highest top seq; from word 128 on, every vector reaching the page's worst
  // asks for a top somewhere, and past 24000 only C has any.
  const seqs = Int32Array.from({ length: 48_000 }, (_, i) => i + 1);
  const list = (isTop: (x: number) => boolean, top: number) => ({
    seqs: seqs.slice(),
    impacts: Float32Array.from(seqs, (x) => (isTop(x) ? top : x % 40 === 3 ? 0.5 : 0.3)),
  });
  const q: Intersection = {
    scored: [
      { list: list((x) => x <= 24_000 && x % 25 === 0, 0.9), idf: 1 },
      { list: list((x) => x <= 24_000 && x % 25 === 12, 0.9), idf: 1 },
      { list: list((x) => x % 50 === 7, 0.9001), idf: 1 },
    ],
    required: [],
    excluded: [],
    upTo: 60_000,
    want: 1,
  };
  expect(same(0, q).top.map((m) => m.seq)).toEqual([47_957]);
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
