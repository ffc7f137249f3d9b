import type { SegmentRef } from './index-manifest';
import { shiftedOffset } from './rewrite-map';
import { DamagedIndexError, type DocOffsets } from './segment-reader';
import { popcount } from './dense-term';

/**
 * A segment as the manifest has it now: the documents rewrites of the graph removed (a bitmap over its local
 * ordinals, and the sorted list) and where its live documents' lines are (SegmentRef.deleted, .shift). Searches
 * leave the deleted documents out of every match and every statistic (search-plan.ts), so they rank as a freshly
 * built index does.
 */
export class SegmentOverlay {
  /** Bit d % 32 of word d / 32: document d is deleted. */
  readonly deleted: Uint32Array;
  readonly deletedOrds: Int32Array;
  readonly shift: readonly number[] | undefined;

  constructor(ref: SegmentRef, seg: Pick<DocOffsets, 'file' | 'docCount'>) {
    const n = seg.docCount;
    const list = ref.deleted ?? [];
    this.deleted = new Uint32Array(Math.ceil(n / 32));
    this.deletedOrds = new Int32Array(list.length);
    let prev = -1;
    for (let i = 0; i < list.length; i++) {
      const d = list[i]!;
      if (!Number.isInteger(d) || d <= prev || d >= n) throw new DamagedIndexError(`${seg.file}: the manifest's deleted documents do not fit it`);
      this.deletedOrds[i] = prev = d;
      this.deleted[d >>> 5]! |= 1 << (d & 31);
    }
    const shift = ref.shift;
    if (shift !== undefined) {
      if (!Array.isArray(shift) || shift.length % 2 !== 0 || shift.some((x, i) => !Number.isSafeInteger(x) || (i % 2 === 0 && i > 0 && x <= shift[i - 2]!))) {
        throw new DamagedIndexError(`${seg.file}: the manifest's offset map does not add up`);
      }
    }
    this.shift = shift;
  }

  get any(): boolean {
    return this.deletedOrds.length > 0;
  }

  /** Where the line of a document whose doc table says `stored` is in the graph now. */
  offsetOf(stored: number): number {
    return shiftedOffset(this.shift, stored);
  }

  isDeleted(d: number): boolean {
    return (this.deleted[d >>> 5]! & (1 << (d & 31))) !== 0;
  }

  /** Deleted documents below ordinal `limit`. */
  deletedBelow(limit: number): number {
    const o = this.deletedOrds;
    let lo = 0;
    let hi = o.length;
    while (lo < hi) {
      const m = (lo + hi) >>> 1;
      if (o[m]! < limit) lo = m + 1;
      else hi = m;
    }
    return lo;
  }

  /** Deleted documents below `limit` among a term's documents (its bitmap over the segment). */
  deletedIn(bm: Uint32Array, limit: number): number {
    let n = 0;
    const W = Math.ceil(limit / 32);
    for (let w = 0; w < W; w++) {
      let x = (bm[w]! & this.deleted[w]!) >>> 0;
      if (x === 0) continue;
      if (w === W - 1 && limit & 31) x &= (1 << (limit & 31)) - 1;
      n += popcount(x >>> 0);
    }
    return n;
  }
}

const overlays = new WeakMap<SegmentRef, SegmentOverlay>();

/** The overlay of a manifest entry that has one (cached per entry: a manifest read once is the same objects), else undefined. */
export function overlayOf(ref: SegmentRef, seg: Pick<DocOffsets, 'file' | 'docCount'>): SegmentOverlay | undefined {
  if (ref.deleted === undefined && ref.shift === undefined) return undefined;
  let o = overlays.get(ref);
  if (!o) overlays.set(ref, (o = new SegmentOverlay(ref, seg)));
  return o;
}
