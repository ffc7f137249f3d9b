/** Unsigned LEB128 varints: the postings' encoding (small numbers — ordinal gaps, positions — take one byte). */
export class VarintWriter {
  buf: Uint8Array;
  length = 0;
  constructor(initial = 16) {
    this.buf = new Uint8Array(initial);
  }
  push(n: number): void {
    if (this.length + 5 > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + 16));
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
    }
    while (n >= 0x80) {
      this.buf[this.length++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    this.buf[this.length++] = n;
  }
  /** Room for `extra` more bytes (written straight into `buf` at `length`). */
  reserve(extra: number): void {
    if (this.length + extra <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + extra + 16));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }
  /** Appends raw bytes (another writer's varints). */
  append(bytes: Uint8Array): void {
    if (this.length + bytes.length > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + bytes.length + 16));
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
    }
    this.buf.set(bytes, this.length);
    this.length += bytes.length;
  }
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.length);
  }
}

/** Reads varints from `buf` starting at `pos`; `pos` advances. */
export class VarintReader {
  constructor(
    private readonly buf: Uint8Array,
    public pos = 0,
  ) {}
  get done(): boolean {
    return this.pos >= this.buf.length;
  }
  read(): number {
    const first = this.buf[this.pos];
    if (first !== undefined && first < 0x80) {
      this.pos++;
      return first;
    }
    let n = 0;
    let shift = 0;
    for (;;) {
      const b = this.buf[this.pos++];
      if (b === undefined) throw new RangeError('varint runs past the end of the postings');
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return n;
      shift += 7;
      if (shift > 35) throw new RangeError('varint too long');
    }
  }
}
