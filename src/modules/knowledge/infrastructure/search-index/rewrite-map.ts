import type { GraphIdentity } from './index-manifest';

/**
 * What a streaming rewrite of the graph did to its lines (ndjson-file-rewrite.ts fills it as it goes), so the search
 * index can follow it instead of being rebuilt (search-index.ts, afterRewrite):
 * - `moves`: flat pairs (old offset, delta), old offsets ascending: a line of the old file at offset x that the
 *   rewrite kept is at x + the delta of the last pair at or below x in the new file (0 before the first pair). A pair
 *   is recorded wherever the delta changes — at the line after one dropped, shortened or lengthened, at a dropped
 *   line itself (where the line after it lands), and at the old file's end (a last line given its missing `\n`).
 * - `removed`: old offsets (ascending) of the node lines dropped or rewritten — their documents leave the index;
 * - `replaced`: the subset of `removed` that was rewritten (a new line in its place, to be indexed).
 */
export interface RewriteTrack {
  moves: number[];
  removed: number[];
  replaced: number[];
  /** The old graph's identity, taken before it was read, and how many bytes were read (its size if nothing else wrote). */
  source?: GraphIdentity;
  read?: number;
  /** The new graph's identity right after its rename. */
  result?: GraphIdentity;
}

export function newRewriteTrack(): RewriteTrack {
  return { moves: [], removed: [], replaced: [] };
}

/** Where old offset `x` (a kept line's start, a segment's bounds, the old end) is in the new file. */
export function movedOffset(moves: readonly number[], x: number): number {
  // The last pair whose offset is <= x (binary search over pairs).
  let lo = 0;
  let hi = moves.length / 2;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (moves[2 * mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? x : x + moves[2 * (lo - 1) + 1]!;
}

/**
 * A segment's offset map in the manifest (SegmentRef.shift): flat pairs (stored offset, delta), stored offsets
 * ascending — a document whose doc table says offset o is at o + the delta of the last pair at or below o. Built
 * from the segment's live documents only (a deleted one's offset is never read again).
 */
export function shiftedOffset(shift: readonly number[] | undefined, o: number): number {
  return shift && shift.length ? movedOffset(shift, o) : o;
}
