import { InvalidArgumentsError } from '../../../kernel/errors';

/**
 * The envelope both stores' search_nodes cursors share: a store's prefix, then a JSON array of the cursor's fields in
 * base64url. Each store names its prefix and checks its fields; a cursor that is not one is the same one-line error.
 */
export function encodeCursorFields(prefix: string, fields: readonly (string | number)[]): string {
  return prefix + Buffer.from(JSON.stringify(fields), 'utf8').toString('base64url');
}

export function notACursor(cursor: string): InvalidArgumentsError {
  return new InvalidArgumentsError(`cursor: '${cursor.slice(0, 40)}' is not a cursor returned by search_nodes`, 'cursor');
}

/** The cursor's fields when it carries `prefix` and `count` fields that `valid` accepts; else {@link notACursor}. */
export function decodeCursorFields<T>(cursor: string, prefix: string, count: number, valid: (x: unknown) => x is T): T[] {
  if (!cursor.startsWith(prefix)) throw notACursor(cursor);
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor.slice(prefix.length), 'base64url').toString('utf8'));
  } catch {
    throw notACursor(cursor);
  }
  if (!Array.isArray(v) || v.length !== count || !v.every(valid)) throw notACursor(cursor);
  return v as T[];
}
