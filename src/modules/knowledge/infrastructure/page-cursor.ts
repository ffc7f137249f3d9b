import { InvalidArgumentsError } from '../../../kernel/errors';

/**
 * `list_nodes` cursors: opaque to clients, they hold the byte offset where the next (older) page ends and the inode of
 * the file they were made from. A rebuild replaces the file (new inode), so a cursor from before it is refused
 * instead of landing in the middle of a line.
 */
const PREFIX = 'k1.';

export function encodeCursor(ino: number, offset: number): string {
  return PREFIX + Buffer.from(`${ino}:${offset}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): { ino: number; offset: number } {
  const bad = () => new InvalidArgumentsError(`cursor: '${cursor.slice(0, 40)}' is not a cursor returned by list_nodes`, 'cursor');
  if (!cursor.startsWith(PREFIX)) throw bad();
  const m = /^(\d+):(\d+)$/.exec(Buffer.from(cursor.slice(PREFIX.length), 'base64url').toString('utf8'));
  if (!m) throw bad();
  return { ino: Number(m[1]), offset: Number(m[2]) };
}

export function staleCursorError(): InvalidArgumentsError {
  return new InvalidArgumentsError(
    'cursor: the knowledge graph was rebuilt (nodes deleted or restored) since this cursor was made; list again without a cursor',
    'cursor',
  );
}
