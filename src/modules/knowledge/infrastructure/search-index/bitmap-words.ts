// Word-at-a-time bitmap operations over the first W words (32 documents a word): a search's candidates are built so.

/** a &= b */
export function and(a: Uint32Array, b: Uint32Array, W: number): void {
  for (let w = 0; w < W; w++) a[w] = a[w]! & b[w]!;
}

/** a |= b */
export function or(a: Uint32Array, b: Uint32Array, W: number): void {
  for (let w = 0; w < W; w++) a[w] = a[w]! | b[w]!;
}

/** a &= ~b */
export function andNot(a: Uint32Array, b: Uint32Array, W: number): void {
  for (let w = 0; w < W; w++) a[w] = a[w]! & ~b[w]!;
}
