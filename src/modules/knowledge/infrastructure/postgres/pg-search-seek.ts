/** The first index ≥ `from` whose seq is ≥ `seq` in the ascending `a` (galloping, then binary search). */
export function seek(a: Int32Array, from: number, seq: number): number {
  let lo = from;
  let step = 1;
  let hi = from;
  while (hi < a.length && a[hi]! < seq) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > a.length) hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
