import { ParseMemo } from '../../../../src/modules/knowledge/infrastructure/postgres/pg-search-parse-memo';

const parse = (term: string) => ({ lexemes: [term], tsqueries: [`'${term}'`], terms: [term] });

describe('ParseMemo (the search cache fast path remembers what the statistics parsed of a query text)', () => {
  it('holds at most `max` texts and drops the least recently used first (a read counts as a use)', () => {
    const memo = new ParseMemo(2);
    memo.set('a', parse('a'));
    memo.set('b', parse('b'));
    expect(memo.get('a')).toEqual(parse('a'));
    memo.set('c', parse('c'));
    expect([memo.get('a'), memo.get('b'), memo.get('c')]).toEqual([parse('a'), undefined, parse('c')]);
    expect(memo.size).toBe(2);
  });

  it('a text set again replaces its parse without growing', () => {
    const memo = new ParseMemo(2);
    memo.set('a', parse('a'));
    memo.set('a', parse('z'));
    expect([memo.get('a'), memo.size]).toEqual([parse('z'), 1]);
  });
});
