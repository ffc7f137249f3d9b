import type { SeqEntries, SeqList } from './pg-search-list-source';

/**
 * A list with the `changed` seqs taken out and `entries` merged in (an entry replaces the list's one of the same
 * seq): linear, idempotent (merging what a list already holds changes nothing). When nothing is taken out and every
 * entry is past the list's end (the usual sync: appends) the arrays are copied once, no comparison per entry.
 */
export function mergeList(list: SeqList, changed: Int32Array, entries: SeqEntries): SeqList {
  const a = list.seqs;
  const e = entries.seqs;
  const scored = list.impacts !== undefined;
  const n = a.length + e.length;
  const seqs = new Int32Array(n);
  const impacts = scored ? new Float32Array(n) : undefined;
  if (changed.length === 0 && (a.length === 0 || e.length === 0 || e[0]! > a[a.length - 1]!)) {
    seqs.set(a);
    seqs.set(e, a.length);
    if (impacts) {
      impacts.set(list.impacts!);
      if (entries.impacts) impacts.set(entries.impacts, a.length);
    }
    return { seqs, ...(impacts ? { impacts } : {}) };
  }
  let i = 0;
  let j = 0;
  let c = 0;
  let out = 0;
  while (i < a.length || j < e.length) {
    const s = i < a.length ? a[i]! : Infinity;
    const t = j < e.length ? e[j]! : Infinity;
    if (t <= s) {
      seqs[out] = t;
      if (impacts) impacts[out] = entries.impacts![j]!;
      out++;
      j++;
      if (t === s) i++;
      continue;
    }
    while (c < changed.length && changed[c]! < s) c++;
    if (c < changed.length && changed[c] === s) {
      i++;
      continue;
    }
    seqs[out] = s;
    if (impacts) impacts[out] = list.impacts![i]!;
    out++;
    i++;
  }
  return { seqs: seqs.slice(0, out), ...(impacts ? { impacts: impacts.slice(0, out) } : {}) };
}

/** Seqs (any order, duplicates) as a sorted Int32Array without duplicates. */
export function sortedSeqs(values: readonly number[]): Int32Array {
  const a = Int32Array.from(values).sort();
  let n = 0;
  for (let i = 0; i < a.length; i++) if (i === 0 || a[i] !== a[i - 1]) a[n++] = a[i]!;
  return a.slice(0, n);
}
