import { InvalidArgumentsError } from '../../../../kernel/errors';

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
  return PREFIX + Buffer.from(JSON.stringify([c.w, c.s, c.o]), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): Cursor {
  const bad = () => new InvalidArgumentsError(`cursor: '${cursor.slice(0, 40)}' is not a cursor returned by search_nodes`, 'cursor');
  if (!cursor.startsWith(PREFIX)) throw bad();
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => typeof x === 'string')) throw bad();
  const [w, s, o] = v as string[];
  if (!/^\d{1,19}$/.test(w!) || !/^-?\d{1,19}$/.test(o!) || !Number.isFinite(Number(s)) || s!.length > 40) throw bad();
  return { w: w!, s: s!, o: o! };
}
