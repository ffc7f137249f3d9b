import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { CachedListSource, SeqEntries, SeqList } from './pg-search-list-source';
import { pairLists, pairRefresh } from './pg-search-pair-source';

/**
 * The search cache's unscored lists of phrase pairs (kind 'pair', key `'a b'`: two lexemes, as the pair lists key
 * them): a phrase's nodes, required by the query, its words scored through their own term lists. Loads and refreshes
 * run inside the cache's REPEATABLE READ sync, where wg_knowledge_pairs_build must not run: its row lock would fail
 * on a project row a writer changed after the snapshot, and its reads would miss rows committed after it. So a load
 * reads the chunks the seqs have passed and no build has listed yet through GIN (exact in the snapshot), and when
 * there are such chunks starts one build on `builder` (the pool: its own connection and transaction, SKIP LOCKED as
 * ever), not awaited — later syncs' snapshots see its lists and their bound together, or neither.
 */
export class PairListSource implements CachedListSource {
  readonly kind = 'pair';
  private readonly building = new Map<string, Promise<void>>();

  /** @param builder runs the builds (the pool); none: chunks due a build stay read through GIN. */
  constructor(private readonly builder?: SqlRunner) {}

  async load(sql: SqlRunner, project: string, keys: readonly string[], upTo: number): Promise<Map<string, SeqList>> {
    const { lists, due } = await pairLists(sql, project, keys, upTo, 'no');
    if (due) this.build(project);
    return new Map([...lists].map(([pair, seqs]) => [pair, { seqs }]));
  }

  async refresh(sql: SqlRunner, project: string, keys: readonly string[], changed: Int32Array, after: number, upTo: number): Promise<Map<string, SeqEntries>> {
    const entries = await pairRefresh(sql, project, keys, changed, after, upTo);
    return new Map([...entries].map(([pair, seqs]) => [pair, { seqs }]));
  }

  /** Resolves when the builds started so far have ended (tests; shutdown). */
  async settled(): Promise<void> {
    await Promise.all(this.building.values());
  }

  private build(project: string): void {
    if (!this.builder || this.building.has(project)) return;
    const run = this.builder
      .query(`SELECT wg_knowledge_pairs_build($1)`, [project])
      .then(
        () => undefined,
        // A failed build changes nothing: its chunks are read through GIN until a later one lists them.
        () => undefined,
      )
      .finally(() => this.building.delete(project));
    this.building.set(project, run);
  }
}
