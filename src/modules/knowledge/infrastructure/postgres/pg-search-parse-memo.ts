/**
 * What the statistics statement (pg-search-statistics.ts) answered of a query's text: per entry of `cacheWords`, its
 * one lexeme and its tsquery text, and the query's positive terms in the order the statement returned them. None of
 * it depends on the data — only on the text and the 'english' configuration — so the search cache's fast path
 * (pg-search-fast.ts) reuses it instead of asking again. `terms` is kept as PostgreSQL ordered it (migration 12's
 * `ORDER BY x.term`, under the database's collation): the SQL path sums scores in that order, and a float sum in
 * another order may differ in its last bit.
 */
export interface QueryParse {
  lexemes: ReadonlyArray<string | null>;
  tsqueries: readonly string[];
  terms: readonly string[];
}

/** The parses of the most recently searched query texts, least recently used dropped past `max`. */
export class ParseMemo {
  private readonly entries = new Map<string, QueryParse>();

  constructor(readonly max: number) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: string): QueryParse | undefined {
    const parse = this.entries.get(key);
    if (parse) {
      this.entries.delete(key);
      this.entries.set(key, parse);
    }
    return parse;
  }

  set(key: string, parse: QueryParse): void {
    this.entries.delete(key);
    this.entries.set(key, parse);
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }
}
