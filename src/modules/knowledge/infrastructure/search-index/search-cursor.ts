import { decodeCursorFields, encodeCursorFields } from '../search-cursor-envelope';
import { staleSearchCursorError } from '../../domain/search/stale-cursor';

/**
 * search_nodes cursors: the index generation (`g`: a rewrite of the graph — a delete, a summary recalculation — or a
 * rebuild makes a new one), the watermark (`w`, how many nodes the first page saw: later ones are left out, so the ranking and its
 * statistics stay those of the first page), the deletion records' size in bytes (`d`: a restore takes records out, so
 * it shrinks; only a delete, which also makes a new generation, grows it) and the last hit's score and ordinal.
 */
export interface SearchCursor {
  g: number;
  w: number;
  d: number;
  s: number;
  o: number;
}

const PREFIX = 's2.';
/** The cursor of servers before `d`: it cannot tell a restore since its first page, so it is refused as stale. */
const RETIRED = 's1.';

const isNumber = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

export function encodeSearchCursor(c: SearchCursor): string {
  return encodeCursorFields(PREFIX, [c.g, c.w, c.d, c.s, c.o]);
}

export function decodeSearchCursor(cursor: string): SearchCursor {
  if (cursor.startsWith(RETIRED)) {
    decodeCursorFields(cursor, RETIRED, 4, isNumber);
    throw staleSearchCursorError();
  }
  const [g, w, d, s, o] = decodeCursorFields(cursor, PREFIX, 5, isNumber);
  return { g: g!, w: w!, d: d!, s: s!, o: o! };
}
