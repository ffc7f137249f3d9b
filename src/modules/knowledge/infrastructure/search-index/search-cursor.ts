import { InvalidArgumentsError } from '../../../../kernel/errors';

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
  return PREFIX + Buffer.from(JSON.stringify([c.g, c.w, c.s, c.o]), 'utf8').toString('base64url');
}

export function decodeSearchCursor(cursor: string): SearchCursor {
  const bad = () => new InvalidArgumentsError(`cursor: '${cursor.slice(0, 40)}' is not a cursor returned by search_nodes`, 'cursor');
  if (!cursor.startsWith(PREFIX)) throw bad();
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(v) || v.length !== 4 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) throw bad();
  return { g: v[0], w: v[1], s: v[2], o: v[3] };
}

export function staleSearchCursorError(): InvalidArgumentsError {
  return new InvalidArgumentsError(
    'cursor: the knowledge graph was rewritten (nodes deleted, summaries recalculated) since this search began; search again without a cursor',
    'cursor',
  );
}
