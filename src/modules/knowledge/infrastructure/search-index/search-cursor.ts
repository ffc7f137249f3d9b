import { InvalidArgumentsError } from '../../../../kernel/errors';
import { decodeCursorFields, encodeCursorFields } from '../search-cursor-envelope';

/**
 * search_nodes cursors: the index generation, the watermark (how many nodes the first page saw: later ones are left
 * out, so the ranking and its statistics stay those of the first page) and the last hit's score and ordinal.
 */
export interface SearchCursor {
  g: number;
  w: number;
  s: number;
  o: number;
}

const PREFIX = 's1.';

export function encodeSearchCursor(c: SearchCursor): string {
  return encodeCursorFields(PREFIX, [c.g, c.w, c.s, c.o]);
}

export function decodeSearchCursor(cursor: string): SearchCursor {
  const [g, w, s, o] = decodeCursorFields(cursor, PREFIX, 4, (x): x is number => typeof x === 'number' && Number.isFinite(x));
  return { g: g!, w: w!, s: s!, o: o! };
}

export function staleSearchCursorError(): InvalidArgumentsError {
  return new InvalidArgumentsError(
    'cursor: the knowledge graph was rewritten (nodes deleted, summaries recalculated) since this search began; search again without a cursor',
    'cursor',
  );
}
