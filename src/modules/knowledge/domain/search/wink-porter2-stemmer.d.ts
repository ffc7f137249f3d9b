/** The Porter2 (Snowball English) stemmer: one lower-case word in, its stem out. */
declare module 'wink-porter2-stemmer' {
  function stem(word: string): string;
  export = stem;
}
