import { forEachTerm, forEachWord, textTerms } from '../../../../src/modules/knowledge/domain/search';

/** What forEachWord (the one definition of a word, shared with the query parser and snippets) says the terms are. */
function reference(text: string): { terms: string[]; positions: number[]; length: number } {
  const terms: string[] = [];
  const positions: number[] = [];
  let length = 0;
  forEachWord(text, (w) => {
    length = w.position + 1;
    if (w.term !== undefined) {
      terms.push(w.term);
      positions.push(w.position);
    }
  });
  return { terms, positions, length };
}

function collect(text: string): { terms: string[]; positions: number[]; length: number } {
  const terms: string[] = [];
  const positions: number[] = [];
  const length = forEachTerm(text, (t, p) => {
    terms.push(t);
    positions.push(p);
  });
  return { terms, positions, length };
}

describe('forEachTerm (the index builder’s tokenizer)', () => {
  it('gives the terms and positions forEachWord gives, on ASCII and on any other text', () => {
    const cases = [
      '',
      'Retry the parser cache with a budget.',
      'Caching, cachés and cache are one term',
      'café au lait, naïve résumé — ÆON ﬁle ①②',
      'retry-policy v2.3 x86_64 e.g. U.S.A.',
      'the the the a an',
      'mixed ASCII then ünïcödé then ascii again',
      'a\u0301 marks \u0301\u0302 only and 日本語のテキスト and Ελληνικά',
      'ends in a non-ASCII word: naïve',
      'x'.repeat(2100) + ' long words are not indexed ' + 'y'.repeat(3000),
      '\u{1F600} emoji \u{1D400}math\u{1D401} surrogates',
      'ΟΔΟΣ ½ ㎏ हिन्दी Øresunds o\u0328\u0301 x\u0301\u0328 full\uff37idth',
      'é'.repeat(1024) + ' skipped without a position, ' + 'é'.repeat(1023) + ' kept',
    ];
    for (const text of cases) expect([text, collect(text)]).toEqual([text, reference(text)]);
  });

  it('agrees with forEachWord on random texts (ASCII, accents, marks, punctuation, stopwords)', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    const pieces = ['retry', 'The', 'and', 'CACHING', 'café', 'e\u0301', '\u0301', ' ', '  ', '-', '.', ',', "'", '42', 'x9', 'ß', 'İ', 'ﬁ', '日本', '\u{1F600}', '\t', '\n', 'naïve', 'Ωmega', 'über', 'Σ', '½', '्', 'ि', 'ø', '\u0328', '㎏'];
    for (let n = 0; n < 2000; n++) {
      let text = '';
      const len = Math.floor(rand() * 20);
      for (let i = 0; i < len; i++) text += pieces[Math.floor(rand() * pieces.length)];
      expect([text, collect(text)]).toEqual([text, reference(text)]);
    }
  });

  it('textTerms starts positions at its base and counts stopwords', () => {
    expect(textTerms('the retry of caches', 10)).toEqual({ terms: ['retri', 'cach'], positions: [11, 13], length: 4 });
  });
});
