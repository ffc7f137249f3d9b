export interface ScoredHit {
  score: number;
  /** Project-wide ordinal (graph order; deleted nodes negative), the tie-break: newer first. */
  ord: number;
  seg: number;
  local: number;
}

/** Higher score first; on a tie the newer node (higher ordinal) first. */
export function compareHits(a: { score: number; ord: number }, b: { score: number; ord: number }): number {
  return b.score - a.score || b.ord - a.ord;
}

/**
 * The `capacity` best hits offered, ranked after `after` (a cursor's last hit) — a bounded heap whose root is the
 * worst hit kept, so a search keeps its page without holding or sorting every match.
 */
export class TopHits {
  private readonly heap: ScoredHit[] = [];

  constructor(
    private readonly capacity: number,
    private readonly after?: { score: number; ord: number },
  ) {}

  /**
   * The score a hit must reach to enter (one scoring exactly this enters only with a higher ordinal), so documents
   * whose bound is below it can be skipped unscored; -Infinity while the heap is not full.
   */
  get threshold(): number {
    return this.heap.length < this.capacity ? -Infinity : this.heap[0]!.score;
  }

  /** Is the heap at capacity (a hit must then beat its worst)? */
  get full(): boolean {
    return this.heap.length >= this.capacity;
  }

  offer(score: number, ord: number, seg: number, local: number): void {
    const after = this.after;
    if (after && (score > after.score || (score === after.score && ord >= after.ord))) return;
    const heap = this.heap;
    if (heap.length < this.capacity) {
      heap.push({ score, ord, seg, local });
      this.up(heap.length - 1);
      return;
    }
    const root = heap[0]!;
    if (score < root.score || (score === root.score && ord < root.ord)) return;
    heap[0] = { score, ord, seg, local };
    this.down(0);
  }

  /** The hits kept, best first. */
  sorted(): ScoredHit[] {
    return [...this.heap].sort(compareHits);
  }

  // "a worse than b": the heap's order, the worst at the root.
  private worse(a: ScoredHit, b: ScoredHit): boolean {
    return compareHits(a, b) > 0;
  }

  private up(i: number): void {
    const heap = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.worse(heap[i]!, heap[p]!)) break;
      [heap[i], heap[p]] = [heap[p]!, heap[i]!];
      i = p;
    }
  }

  private down(i: number): void {
    const heap = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && this.worse(heap[l]!, heap[m]!)) m = l;
      if (r < heap.length && this.worse(heap[r]!, heap[m]!)) m = r;
      if (m === i) break;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  }
}
