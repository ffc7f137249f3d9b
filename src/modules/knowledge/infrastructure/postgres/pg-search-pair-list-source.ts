import type { PgDatabase, SqlRunner } from '../../../../kernel/postgres/pg-database';
import { addLists, pairLists as pairListsOf, PAIR_CHUNK } from './knowledge-pair-migration';
import type { CachedListSource, SeqEntries, SeqList } from './pg-search-list-source';
import { pairLists, pairRefresh } from './pg-search-pair-source';

/**
 * The search cache's unscored lists of phrase pairs (kind 'pair', key `'a b'`: two lexemes, as the pair lists key
 * them): a phrase's nodes, required by the query, its words scored through their own term lists. Loads and refreshes
 * run inside the cache's REPEATABLE READ sync, where wg_knowledge_pairs_build must not run: its row lock would fail
 * on a project row a writer changed after the snapshot, and its reads would miss rows committed after it. So a load
 * reads the chunks the seqs have passed and no build has listed yet through GIN (exact in the snapshot), and when
 * there are such chunks starts a build on `builder` (the pool), not awaited — later syncs' snapshots see its lists and
 * their bound together, or neither. The build lists one chunk per transaction, under the project's row lock taken
 * with SKIP LOCKED as wg_knowledge_pairs_build takes it, until the due chunks are listed: the function lists every
 * due chunk in one statement (a never-built 1,000,000-node project: 122 chunks, 4 min 43 s, past the pool's
 * statement timeout, the writers' lock held throughout), a chunk here takes 1–4 s and lets writers in between.
 */
export class PairListSource implements CachedListSource {
  readonly kind = 'pair';
  private readonly building = new Map<string, Promise<void>>();

  /** @param builder runs the builds (the pool); none: chunks due a build stay read through GIN. */
  constructor(private readonly builder?: Pick<PgDatabase, 'transaction'>) {}

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
    const run = (async () => {
      // A failed build changes nothing: its chunks are read through GIN until a later one lists them.
      while (await buildOneChunk(this.builder!, project).catch(() => false));
    })().finally(() => this.building.delete(project));
    this.building.set(project, run);
  }
}

/**
 * Lists the oldest chunk of `project` the seqs have passed and no build has listed, in one transaction under the
 * project's row lock (SKIP LOCKED: a writer holding it, nothing done). Answers whether one was listed.
 */
export async function buildOneChunk(db: Pick<PgDatabase, 'transaction'>, project: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const locked = await tx.query(`SELECT 1 FROM wg_knowledge_projects WHERE project = $1 FOR UPDATE SKIP LOCKED`, [project]);
    if (!locked.length) return false;
    // (A statement after the lock: its snapshot holds every write committed before.)
    const [r] = await tx.query<{ below: string; newest: string | null }>(
      `SELECT coalesce((SELECT below FROM wg_knowledge_pair_chunks WHERE project = $1), 0)::text AS below,
         (SELECT max(seq) / ${PAIR_CHUNK} FROM wg_knowledge_nodes WHERE project = $1)::text AS newest`,
      [project],
    );
    if (!r?.newest || Number(r.below) >= Number(r.newest)) return false;
    await tx.query(`SET LOCAL work_mem = '16MB'`);
    await tx.query(addLists(pairListsOf('wg_knowledge_nodes n', `n.project = $1 AND n.seq >= $2::bigint * ${PAIR_CHUNK} AND n.seq < ($2::bigint + 1) * ${PAIR_CHUNK}`)), [project, r.below]);
    await tx.query(
      `INSERT INTO wg_knowledge_pair_chunks (project, below) VALUES ($1, $2::bigint + 1) ON CONFLICT (project) DO UPDATE SET below = EXCLUDED.below`,
      [project, r.below],
    );
    return true;
  });
}
