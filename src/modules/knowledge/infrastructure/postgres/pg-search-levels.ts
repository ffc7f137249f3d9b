import { real } from './pg-search-rank';

/**
 * Planning a search of several required terms over their impact levels (migration 7). Every node holds each term at
 * one exact level j, its impact at most the term's `up[j]` (the highest impact written at level j or below), so its
 * score Σ idf × impact is at most the bound of its combination of levels, U(b) = Σ idf × up[b] (the same float8
 * products summed in the same order as the score: a bound never below a score it bounds). For a threshold θ the nodes
 * that can reach it lie in the combinations with U ≥ θ — an up-set, the union over its minimal combinations of the
 * AND of the cumulative level bitmaps ("level ≥ b" per term; level 0 is the term bitmap). Scoring those nodes and
 * finding `want` of them at θ or above gives the exact best `want`: every other node scores below θ.
 */

/** A required term's statistics and levels, as the search's statistics read them. */
export interface LevelTerm {
  term: string;
  idf: number;
  /** Per exact level (0…): nodes at that level and the highest impact written there (text: the exact float4). */
  levels: Array<{ level: number; docs: number; max: string }>;
}

/** What the walk needs of a term: its idf, per exact level the bound and the share of the project's nodes. */
interface Planned {
  idf: number;
  up: number[];
  share: number[];
  /** Per level j: the nodes at j or above (the size of the cumulative bitmap). */
  atLeast: number[];
}

/** A try expected to score more nodes than this is not made (the caller scores every match instead). */
const MAX_EXPECTED_CANDIDATES = 4096;

/** More combinations than this (many terms, many levels) are not enumerated: the caller scores every match. */
export const MAX_COMBINATIONS = 4096;

function planTerm(t: LevelTerm, nodes: number): Planned {
  const top = Math.max(0, ...t.levels.map((l) => l.level));
  const up: number[] = [];
  const share: number[] = [];
  let best = 0;
  for (let j = 0; j <= top; j++) {
    const l = t.levels.find((x) => x.level === j);
    if (l) best = Math.max(best, real(l.max));
    up.push(best);
    share.push(l && nodes > 0 ? Math.max(0, l.docs) / nodes : 0);
  }
  const atLeast = share.map((_, j) => share.slice(j).reduce((a, b) => a + b, 0) * nodes);
  return { idf: t.idf, up, share, atLeast };
}

/** Every combination of levels with its bound and expected share of nodes (terms independent), bound descending. */
function combinations(planned: readonly Planned[]): Array<{ levels: number[]; bound: number; share: number }> | undefined {
  const total = planned.reduce((n, p) => n * p.up.length, 1);
  if (total > MAX_COMBINATIONS) return undefined;
  const out: Array<{ levels: number[]; bound: number; share: number }> = [];
  for (let k = 0; k < total; k++) {
    const levels: number[] = [];
    let rest = k;
    for (const p of planned) {
      levels.push(rest % p.up.length);
      rest = Math.floor(rest / p.up.length);
    }
    let bound = 0;
    let share = 1;
    planned.forEach((p, i) => {
      bound += p.idf * p.up[levels[i]!]!;
      share *= p.share[levels[i]!]!;
    });
    out.push({ levels, bound, share });
  }
  return out.sort((a, b) => b.bound - a.bound);
}

/** The minimal combinations of the up-set {U ≥ θ}: lowering any one level leaves it. */
function minimal(all: ReadonlyArray<{ levels: number[]; bound: number }>, theta: number): number[][] {
  const inSet = new Set(all.filter((c) => c.bound >= theta).map((c) => c.levels.join(',')));
  return all
    .filter((c) => c.bound >= theta)
    .filter((c) => c.levels.every((l, i) => l === 0 || !inSet.has(c.levels.map((x, j) => (j === i ? x - 1 : x)).join(','))))
    .map((c) => c.levels);
}

/** One try of the walk: θ and the minimal combinations whose bitmaps hold every node that can reach it. */
export interface LevelTry {
  theta: number;
  combinations: number[][];
  /** Per combination the term whose bitmap is the smallest: only its chunks are read for the others. */
  drive: number[];
  /** θ is the lowest bound there is: the combinations hold every match (nothing left to try after this one). */
  last: boolean;
}

/**
 * The thresholds to try, highest first: each the highest bound whose combinations are expected (terms taken as
 * independent) to hold `want` × 4, × 32, × 256… nodes, until one holds every match. `passRate`: the share of such
 * nodes expected to match the whole query (a phrase's words are not always neighbours: its count over the words'
 * independent estimate), which the targets are divided by. Undefined when the combinations are too many to enumerate.
 */
export function levelTries(terms: readonly LevelTerm[], nodes: number, want: number, passRate = 1): LevelTry[] | undefined {
  // A term without levels (none written yet) has no bound: nothing can be pruned.
  if (terms.length === 0 || terms.some((t) => t.levels.length === 0)) return undefined;
  const planned = terms.map((t) => planTerm(t, nodes));
  const all = combinations(planned);
  if (!all || all.length === 0) return undefined;
  const tries: LevelTry[] = [];
  let target = (4 * want) / Math.min(1, Math.max(passRate, 1e-3));
  let expected = 0;
  let k = 0;
  while (k < all.length) {
    // Take every combination of the next bound (ties go together), until the expected count reaches the target.
    const bound = all[k]!.bound;
    while (k < all.length && all[k]!.bound === bound) expected += all[k++]!.share * nodes;
    if (expected >= target || k === all.length) {
      // Past this many expected candidates, scoring every match through GIN costs less than reading them one by one.
      if (expected > MAX_EXPECTED_CANDIDATES) break;
      const combos = minimal(all, bound);
      // The smallest bitmap of the combination above level 0 (level 0, presence, only when it is all there is).
      const size = (c: number[], i: number) => (c[i]! > 0 || c.every((l) => l === 0) ? planned[i]!.atLeast[c[i]!]! : Infinity);
      const drive = combos.map((c) => c.reduce((best, _, i) => (size(c, i) < size(c, best) ? i : best), 0));
      tries.push({ theta: bound, combinations: combos, drive, last: k === all.length });
      target *= 8;
    }
  }
  return tries;
}
