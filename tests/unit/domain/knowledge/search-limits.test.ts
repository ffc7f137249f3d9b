import { SEARCH_LIMITS, searchLimitBreach, utf8Length, type SearchedText } from '../../../../src/modules/knowledge/domain/search';

/** Each search limit at its maximum (searchable) and one past it (refused, naming the limit and what the node has). */
const limitOf = (node: SearchedText) => searchLimitBreach(node)?.limit;
const words = (count: number, from = 0) => Array.from({ length: count }, (_, i) => `w${from + i}`).join(' ');
/** U+FDF2 folds (NFKD) to four Arabic letters, 8 bytes: a word of many bytes in few characters. */
const ALLAH = '\ufdf2';

describe('search limits', () => {
  it('a thought of up to 200,000 characters; a longer one is refused before any word is read', () => {
    expect(limitOf({ thought: ' '.repeat(SEARCH_LIMITS.thoughtLength - 1) + 'x' })).toBeUndefined();
    const b = searchLimitBreach({ thought: 'lorem ipsum '.repeat(4_400_000) });
    expect(b).toMatchObject({ limit: 'thoughtLength', max: 200_000, size: 52_800_000 });
    expect(b!.message).toBe('at most 200,000 characters (got 52,800,000); split it into several nodes');
  });

  it('up to 16,000 words, stopwords counted, tags and artifact names and paths with them', () => {
    expect(limitOf({ thought: words(16_000) })).toBeUndefined();
    expect(searchLimitBreach({ thought: words(16_001) })).toMatchObject({ limit: 'words', size: 16_001 });
    expect(limitOf({ thought: words(15_999) + ' the' })).toBeUndefined();
    expect(limitOf({ thought: words(15_999) + ' the of' })).toBe('words');
    expect(limitOf({ thought: words(15_998), tags: ['t1 t2'] })).toBeUndefined();
    expect(limitOf({ thought: words(15_998), tags: ['t1 t2', 't3'] })).toBe('words');
    expect(limitOf({ thought: words(15_999), artifacts: [{ name: 'a.ts', path: 'src/a.ts' }] })).toBe('words');
    expect(limitOf({ thought: words(15_995), artifacts: [{ name: 'a.ts', path: 'src/a.ts' }] })).toBeUndefined();
  });

  it('one term at most 250 times in a node, its word forms together; stopwords are not terms', () => {
    expect(limitOf({ thought: 'retry '.repeat(250) + 'storm' })).toBeUndefined();
    const b = searchLimitBreach({ thought: 'retry '.repeat(251) + 'storm' });
    expect(b).toMatchObject({ limit: 'repeats', size: 251 });
    expect(b!.message).toContain("'retri' appears 251 times");
    expect(limitOf({ thought: 'cache '.repeat(125) + 'Caching '.repeat(125) })).toBeUndefined();
    expect(limitOf({ thought: 'cache '.repeat(125) + 'Caching '.repeat(125), tags: ['cached'] })).toBe('repeats');
    expect(limitOf({ thought: 'the '.repeat(5000) + 'end' })).toBeUndefined();
  });

  it('a word of up to 2,000 bytes folded (so an accent costs nothing, a CJK character 3)', () => {
    expect(limitOf({ thought: `a ${'x'.repeat(2000)} b` })).toBeUndefined();
    expect(searchLimitBreach({ thought: `a ${'x'.repeat(3000)} b` })).toMatchObject({ limit: 'wordBytes', size: 3000 });
    expect(limitOf({ thought: 'é'.repeat(2000) })).toBeUndefined();
    expect(limitOf({ thought: '日'.repeat(666) })).toBeUndefined();
    expect(searchLimitBreach({ thought: '日'.repeat(667) })).toMatchObject({ limit: 'wordBytes', size: 2001 });
    expect(limitOf({ thought: 'ok', artifacts: [{ name: 'x'.repeat(2001) }] })).toBe('wordBytes');
  });

  it("the terms' tsvector bytes at most 1,000,000: each distinct term + 3, and 2 per occurrence", () => {
    // Words of 240 U+FDF2 and a number: 1,920 bytes of letters each, distinct.
    const big = (count: number) => Array.from({ length: count }, (_, i) => ALLAH.repeat(240) + String(i).padStart(3, '0')).join(' ');
    const per = 1920 + 3 + 3 + 2;
    expect(limitOf({ thought: big(Math.floor(1_000_000 / per)) })).toBeUndefined();
    const over = Math.floor(1_000_000 / per) + 1;
    expect(searchLimitBreach({ thought: big(over) })).toMatchObject({ limit: 'indexBytes', size: over * per });
    expect(big(over).length).toBeLessThan(SEARCH_LIMITS.thoughtLength);
  });

  it('counts UTF-8 bytes as Buffer does', () => {
    for (const s of ['', 'abc', 'é', '日本', '😀x', '\ud800', 'a\udc00b', ALLAH.normalize('NFKD')]) expect(utf8Length(s)).toBe(Buffer.byteLength(s));
  });
});

describe("add_nodes' description", () => {
  it('states every search limit as SEARCH_LIMITS has it', () => {
    const { knowledgeTools } = require('../../../../src/modules/knowledge/knowledge.tools') as typeof import('../../../../src/modules/knowledge/knowledge.tools');
    const description = knowledgeTools.find((t) => t.name === 'add_nodes')!.description;
    const { thoughtLength: _schema, ...stated } = SEARCH_LIMITS;
    for (const [limit, value] of Object.entries(stated)) expect({ limit, stated: description.includes(value.toLocaleString('en-US')) }).toEqual({ limit, stated: true });
  });
});
