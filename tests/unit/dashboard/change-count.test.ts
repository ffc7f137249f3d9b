/**
 * The dashboard page's rule against a change made between its first fetch and its event stream
 * (src/dashboard/web/src/change-count.ts; the browser case: tests/e2e/dashboard-browser-first-fetch.test.ts).
 */
import { changeCountOf, readBeforeStream } from '../../../src/dashboard/web/src/change-count';

describe('changeCountOf', () => {
  it('reads instance:count', () => {
    expect(changeCountOf('a1b2c3:0')).toEqual({ instance: 'a1b2c3', count: 0 });
    expect(changeCountOf('a1b2c3:1234')).toEqual({ instance: 'a1b2c3', count: 1234 });
  });

  it.each([[null], [undefined], [''], ['a1b2c3'], ['a1b2c3:'], [':4'], ['a1b2c3:-1'], ['a1b2c3:4.5'], ['a b:4']])('is undefined for %p', (header) => {
    expect(changeCountOf(header)).toBeUndefined();
  });
});

describe('readBeforeStream', () => {
  const at = (instance: string, count: number) => ({ instance, count });

  it('is true for data read before a change the stream opened after', () => {
    expect(readBeforeStream(at('x', 4), at('x', 5))).toBe(true);
  });

  it('is false for data read at the count the stream opened at, or after a later change', () => {
    expect(readBeforeStream(at('x', 5), at('x', 5))).toBe(false);
    expect(readBeforeStream(at('x', 9), at('x', 5))).toBe(false);
  });

  it('is true for data read from another instance (a restarted dashboard counts from 0 again)', () => {
    expect(readBeforeStream(at('old', 90), at('new', 0))).toBe(true);
    expect(readBeforeStream(at('new', 0), at('old', 90))).toBe(true);
  });

  it('is false while either count is unknown (no stream open, or an answer without the header)', () => {
    expect(readBeforeStream(undefined, at('x', 5))).toBe(false);
    expect(readBeforeStream(at('x', 4), undefined)).toBe(false);
  });
});
