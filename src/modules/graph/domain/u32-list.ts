/** A growable array of unsigned 32-bit integers (4 bytes an item instead of a JS array's 8). */
export class U32List {
  private data: Uint32Array;
  length = 0;
  constructor(capacity = 4) {
    this.data = new Uint32Array(capacity);
  }
  get bytes(): number {
    return this.data.byteLength;
  }
  push(v: number): number {
    if (this.length === this.data.length) {
      const next = new Uint32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
    return this.data.byteLength;
  }
  at(i: number): number {
    return this.data[i]!;
  }
  /** Largest position p with item(p) < bound (items are increasing), or -1. */
  lastBelow(bound: number): number {
    let lo = 0;
    let hi = this.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (this.data[mid]! < bound) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found;
  }
}
