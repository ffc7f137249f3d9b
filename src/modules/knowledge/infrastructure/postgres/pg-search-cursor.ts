import { decodeCursorFields, encodeCursorFields, notACursor } from '../search-cursor-envelope';
import { staleSearchCursorError } from '../../domain/search/stale-cursor';

/**
 * search_nodes' cursors in PostgreSQL: the state the first page searched (its {@link SearchedState}), then the last
 * hit's score (`s`) and order key (`o`) the next page starts below.
 */
const PREFIX = 'p3.';
/** Servers before the searched state's `x` and `d`: such a cursor cannot tell a delete since, so it is stale. */
const RETIRED = 'p2.';

/**
 * What a first page searched: its watermark (`w`, the highest seq: later pages leave out nodes added since), the
 * project's last change id (`x`, wg_knowledge_changes: a delete or a summary recalculation logs one, an add does not)
 * and its count of deletion records (`d`: a restore lowers it, only a delete — which logs — raises it). A later page
 * whose project has another `x` or `d` is refused: its statistics and matches are no longer the first page's.
 */
export interface SearchedState {
  w: string;
  x: string;
  d: string;
}

export interface Cursor extends SearchedState {
  s: string;
  o: string;
}

/** The one encoder: every page of every path passes the state it searched, so no cursor leaves without it. */
export function encodeCursor(state: SearchedState, s: string, o: string): string {
  return encodeCursorFields(PREFIX, [state.w, state.x, state.d, s, o]);
}

const isString = (x: unknown): x is string => typeof x === 'string';
const COUNT = /^\d{1,19}$/;

export function decodeCursor(cursor: string): Cursor {
  if (cursor.startsWith(RETIRED)) {
    decodeCursorFields(cursor, RETIRED, 3, isString);
    throw staleSearchCursorError();
  }
  const [w, x, d, s, o] = decodeCursorFields(cursor, PREFIX, 5, isString);
  if (!COUNT.test(w!) || !COUNT.test(x!) || !COUNT.test(d!) || !/^-?\d{1,19}$/.test(o!) || !Number.isFinite(Number(s)) || s!.length > 40) {
    throw notACursor(cursor);
  }
  return { w: w!, x: x!, d: d!, s: s!, o: o! };
}

/** A later page's check: the project's state now against the first page's ({@link SearchedState}); stale if moved. */
export function assertSameState(cursor: SearchedState, now: Pick<SearchedState, 'x' | 'd'>): void {
  if (cursor.x !== now.x || cursor.d !== now.d) throw staleSearchCursorError();
}
