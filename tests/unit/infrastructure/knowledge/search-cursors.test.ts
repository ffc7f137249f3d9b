import { decodeCursor, encodeCursor } from '../../../../src/modules/knowledge/infrastructure/postgres/pg-search-cursor';
import { decodeSearchCursor, encodeSearchCursor } from '../../../../src/modules/knowledge/infrastructure/search-index/search-cursor';

describe("search_nodes cursors of both stores (one envelope)", () => {
  it('round-trip their fields', () => {
    expect(decodeSearchCursor(encodeSearchCursor({ g: 3, w: 1000, s: 1.25, o: -7 }))).toEqual({ g: 3, w: 1000, s: 1.25, o: -7 });
    expect(decodeCursor(encodeCursor({ w: '42', s: '0.5', o: '-3' }))).toEqual({ w: '42', s: '0.5', o: '-3' });
  });

  it("refuse another store's cursor, garbage and wrong fields with the same one-line error naming the field", () => {
    const files = encodeSearchCursor({ g: 1, w: 2, s: 3, o: 4 });
    const pg = encodeCursor({ w: '1', s: '2', o: '3' });
    const message = /^cursor: '.*' is not a cursor returned by search_nodes$/;
    expect(() => decodeCursor(files)).toThrow(message);
    expect(() => decodeSearchCursor(pg)).toThrow(message);
    expect(() => decodeSearchCursor('s1.%%%')).toThrow(message);
    expect(() => decodeSearchCursor('s1.' + Buffer.from('[1,2,3]').toString('base64url'))).toThrow(message);
    expect(() => decodeCursor('p2.' + Buffer.from('["x","1","2"]').toString('base64url'))).toThrow(message);
    expect(() => decodeCursor('p2.' + Buffer.from('[1,2,3]').toString('base64url'))).toThrow(message);
  });
});
