import { decodeCursorFields, encodeCursorFields, notACursor } from '../search-cursor-envelope';

/**
 * search_nodes' cursors in PostgreSQL: the first page's watermark (`w`, the highest seq it searched: later pages leave
 * out nodes added since), and the last hit's score (`s`) and order key (`o`) the next page starts below.
 */
const PREFIX = 'p2.';

export interface Cursor {
  w: string;
  s: string;
  o: string;
}

export function encodeCursor(c: Cursor): string {
  return encodeCursorFields(PREFIX, [c.w, c.s, c.o]);
}

export function decodeCursor(cursor: string): Cursor {
  const [w, s, o] = decodeCursorFields(cursor, PREFIX, 3, (x): x is string => typeof x === 'string');
  if (!/^\d{1,19}$/.test(w!) || !/^-?\d{1,19}$/.test(o!) || !Number.isFinite(Number(s)) || s!.length > 40) throw notACursor(cursor);
  return { w: w!, s: s!, o: o! };
}
