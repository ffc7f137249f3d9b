import type { SqlRunner } from '../../../../kernel/postgres/pg-database';

/**
 * A sorted list of a project's seqs held in the server process by the search cache (pg-search-cache.ts): a term's
 * postings (with their impacts, a scored list) or any other set of nodes a query requires (a phrase's pair: no
 * impacts, an unscored list). `seqs` ascending, no duplicates; `impacts[i]` (float4 values, as `real` in
 * pg-search-rank.ts reads them) belongs to `seqs[i]`.
 */
export interface SeqList {
  seqs: Int32Array;
  impacts?: Float32Array;
}

/** The entries of a list among some nodes (a refresh): seqs ascending, impacts parallel when the list is scored. */
export type SeqEntries = SeqList;

/**
 * Where the cache's lists of one kind come from. Every call of a sync runs in one REPEATABLE READ transaction (one
 * snapshot for every source and statement), so lists of different sources always describe the same rows.
 *
 * - `load`: the whole lists of `keys` among the project's nodes with seq ≤ `upTo` (the snapshot's highest seq).
 * - `refresh`: for each of `keys`, its entries among the nodes whose seq is in `changed` (rows updated or deleted
 *   since the cache's last sync, as the change log lists them; a deleted one simply has none) or in (`after`, `upTo`]
 *   (appended since). The cache removes `changed` from each list, then merges these entries in: a refresh of a state
 *   it already holds changes nothing (merges are idempotent).
 *
 * Seqs are int4 in the lists: a project whose highest seq reaches 2^31 is not cached.
 */
export interface CachedListSource {
  /** Unique among the sources of one cache ('term', 'pair', …): a list is cached under (kind, key). */
  readonly kind: string;
  load(sql: SqlRunner, project: string, keys: readonly string[], upTo: number): Promise<Map<string, SeqList>>;
  refresh(sql: SqlRunner, project: string, keys: readonly string[], changed: Int32Array, after: number, upTo: number): Promise<Map<string, SeqEntries>>;
}

/** Bytes a list holds in memory (its arrays; the per-list overhead counted as a flat 64). */
export function listBytes(list: SeqList): number {
  return list.seqs.byteLength + (list.impacts?.byteLength ?? 0) + 64;
}
