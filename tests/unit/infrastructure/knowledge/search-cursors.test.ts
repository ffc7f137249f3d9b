import { assertSameState, decodeCursor, encodeCursor } from '../../../../src/modules/knowledge/infrastructure/postgres/pg-search-cursor';
import { decodeSearchCursor, encodeSearchCursor } from '../../../../src/modules/knowledge/infrastructure/search-index/search-cursor';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const STALE = /^cursor: the knowledge graph was rewritten .*; search again without a cursor$/;

describe("search_nodes cursors of both stores (one envelope)", () => {
  it('round-trip their fields', () => {
    expect(decodeSearchCursor(encodeSearchCursor({ g: 3, w: 1000, d: 512, s: 1.25, o: -7 }))).toEqual({ g: 3, w: 1000, d: 512, s: 1.25, o: -7 });
    expect(decodeCursor(encodeCursor({ w: '42', x: '9', d: '2' }, '0.5', '-3'))).toEqual({ w: '42', x: '9', d: '2', s: '0.5', o: '-3' });
  });

  it("refuse another store's cursor, garbage and wrong fields with the same one-line error naming the field", () => {
    const files = encodeSearchCursor({ g: 1, w: 2, d: 0, s: 3, o: 4 });
    const pg = encodeCursor({ w: '1', x: '0', d: '0' }, '2', '3');
    const message = /^cursor: '.*' is not a cursor returned by search_nodes$/;
    expect(() => decodeCursor(files)).toThrow(message);
    expect(() => decodeSearchCursor(pg)).toThrow(message);
    expect(() => decodeSearchCursor('s2.%%%')).toThrow(message);
    expect(() => decodeSearchCursor('s2.' + b64([1, 2, 3, 4]))).toThrow(message);
    expect(() => decodeCursor('p3.' + b64(['x', '0', '0', '1', '2']))).toThrow(message);
    expect(() => decodeCursor('p3.' + b64(['1', '-1', '0', '1', '2']))).toThrow(message);
    expect(() => decodeCursor('p3.' + b64([1, 2, 3, 4, 5]))).toThrow(message);
    // An older server's cursor that is not even well formed is not a cursor either.
    expect(() => decodeCursor('p2.%%%')).toThrow(message);
    expect(() => decodeSearchCursor('s1.' + b64([1, 2]))).toThrow(message);
  });

  it("answer an older server's cursor (no rewrite state) as stale, not as a cursor to continue", () => {
    expect(() => decodeCursor('p2.' + b64(['42', '0.5', '-3']))).toThrow(STALE);
    expect(() => decodeSearchCursor('s1.' + b64([3, 1000, 1.25, -7]))).toThrow(STALE);
  });

  it('a PostgreSQL page continues only the state it was made in: another change id or deletion count is stale', () => {
    const c = decodeCursor(encodeCursor({ w: '42', x: '9', d: '2' }, '0.5', '-3'));
    expect(() => assertSameState(c, { x: '9', d: '2' })).not.toThrow();
    expect(() => assertSameState(c, { x: '10', d: '2' })).toThrow(STALE);
    expect(() => assertSameState(c, { x: '9', d: '1' })).toThrow(STALE);
  });
});
