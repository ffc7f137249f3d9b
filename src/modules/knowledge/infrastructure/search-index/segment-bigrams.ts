import { drain, type Steps } from './steps';

/**
 * The bigrams of a segment being encoded (segment-format.ts): per pair of neighbouring dense terms, the documents where
 * the first is right before the second. `slots` holds, per word of every document (documents' words from
 * `wordAt[d]`), the id of its dense term or -1.
 */

/** Per pair of dense terms (key first × count + second) at neighbouring positions: the documents, ascending. */
export function bigrams(slots: Int32Array, wordAt: Int32Array, docs: number, count: number): Map<number, ArrayLike<number>> {
  return drain(bigramsSteps(slots, wordAt, docs, count));
}

/** Documents visited between two steps of {@link bigramsSteps}. */
const DOCS_PER_STEP = 4096;

/** {@link bigrams} in steps (a few thousand documents each), for a flush in the background. */
export function* bigramsSteps(slots: Int32Array, wordAt: Int32Array, docs: number, count: number): Steps<Map<number, ArrayLike<number>>> {
  // A table by key while the pairs are few enough (the usual case: dense terms are a few dozen): the documents of each
  // pair counted first, then written into an array of that length (pushing to growing arrays cost a third of the
  // encoding); else a map of arrays.
  if (count * count > 1 << 18) return bigramsByMap(slots, wordAt, docs, count);
  const df = new Int32Array(count * count);
  const seen = new Int32Array(count * count);
  const lists: Int32Array[] = new Array(count * count);
  const pairs = new Map<number, Int32Array>();
  for (let pass = 0; pass < 2; pass++) {
    seen.fill(-1);
    for (let d = 0; d < docs; d++) {
      if (d % DOCS_PER_STEP === DOCS_PER_STEP - 1) yield;
      const to = wordAt[d + 1]! - 1;
      for (let i = wordAt[d]!; i < to; i++) {
        const a = slots[i]!;
        const b = slots[i + 1]!;
        if (a < 0 || b < 0) continue;
        const key = a * count + b;
        if (seen[key] === d) continue;
        seen[key] = d;
        if (pass === 0) df[key]!++;
        else lists[key]![df[key]!++] = d;
      }
    }
    if (pass === 0) {
      for (let key = 0; key < count * count; key++) if (df[key]! > 0) pairs.set(key, (lists[key] = new Int32Array(df[key]!)));
      df.fill(0);
    }
  }
  return pairs;
}

function bigramsByMap(slots: Int32Array, wordAt: Int32Array, docs: number, count: number): Map<number, number[]> {
  const pairs = new Map<number, number[]>();
  for (let d = 0; d < docs; d++) {
    const to = wordAt[d + 1]! - 1;
    for (let i = wordAt[d]!; i < to; i++) {
      const a = slots[i]!;
      const b = slots[i + 1]!;
      if (a < 0 || b < 0) continue;
      const key = a * count + b;
      let ords = pairs.get(key);
      if (!ords) pairs.set(key, (ords = []));
      if (ords[ords.length - 1] !== d) ords.push(d);
    }
  }
  return pairs;
}
