import type { PgDatabase } from '../../../../kernel/postgres/pg-database';
import { listBytes, type CachedListSource, type SeqList } from './pg-search-list-source';
import { mergeList } from './pg-search-lists';
import { denseBytes } from './pg-search-dense';
import { highBytes } from './pg-search-dense-high';
import { termSource } from './pg-search-term-source';
import { ParseMemo } from './pg-search-parse-memo';
import { postedNodes } from './pg-search-watermark';

/** What a query's statistics saw of the project (read in their one statement): the cache must be at least as new. */
export interface Seen {
  /** The project's highest seq (0: none). */
  maxSeq: number;
  /** Its highest change id in wg_knowledge_changes (migration 10), '0' when none. */
  change: string;
  /** wg_knowledge_projects.version, '0' when no row. */
  version: string;
}

/** A list a query needs: its source's kind and its key (a term, a pair). */
export interface ListRef {
  kind: string;
  key: string;
}

/**
 * The project as the snapshot of the cache's last sync saw it, as PostgreSQL printed it (what statistics() reads:
 * highest seq, last change id, version) and its live node count (wg_knowledge_projects.nodes, the idf's N). Every list
 * held reflects exactly that snapshot's rows, so while the project still shows the same three values the lists are
 * its truth (pg-search-fast.ts).
 */
export interface SyncedState {
  maxSeq: string;
  change: string;
  version: string;
  nodes: number;
}

/** The lists a query needs, held as of `state`, read without syncing (pg-search-fast.ts). */
export interface Peeked {
  lists: Map<string, SeqList>;
  state: SyncedState;
}

interface ProjectCache {
  /** Every list reflects the rows with seq ≤ w … */
  w: number;
  /** … and every change up to id x, as of one snapshot whose version was `version`. */
  x: bigint;
  version: bigint;
  /** The last sync's snapshot, undefined before the first one. */
  state?: SyncedState;
  lists: Map<string, SeqList>;
  /** The project's syncs, one at a time. */
  chain: Promise<unknown>;
  /** A sync loading lists is under way: a query wanting other missing lists takes the SQL path meanwhile. */
  loading: boolean;
  /** Seqs reached 2^31 (the lists are int4): never cached. */
  off: boolean;
}

/** Query texts whose parse the fast path remembers (a few hundred bytes each). */
const PARSES = 512;
/** A sync with more changed rows than this reloads the project's lists instead. */
const RELOAD_CHANGES = 50_000;
const MAX_INT4 = 2 ** 31 - 1;

const refKey = (r: ListRef) => `${r.kind}\u0000${r.key}`;

/**
 * The per-host postings cache of PostgreSQL search (docs/postgres.md "Knowledge graph"): for (project, list) a sorted
 * seq list held in the server process, PostgreSQL still the truth. A query passes what its statistics saw (`Seen`);
 * lists as new as that are answered at once. Otherwise the project's sync (one at a time per project) brings its
 * cached lists forward in one REPEATABLE READ transaction — the nodes appended since the watermark and the rows the
 * change log (migration 10) lists since the last change id, re-read through the sources — and loads missing lists in
 * the same snapshot. A change log trimmed past the cache's last id (its floor), or a sync with very many changes,
 * reloads. Lists are dropped least recently used first past `budgetBytes`.
 */
export class PgSearchCache {
  private readonly projects = new Map<string, ProjectCache>();
  /** Every cached list, least recently used first: `project \0 kind \0 key` → bytes. */
  private readonly lru = new Map<string, number>();
  private readonly sources: Map<string, CachedListSource>;
  bytes = 0;
  /** What happened, for tests and the bench: queries answered from lists, syncs run, full loads, SQL fallbacks. */
  readonly counters = {
    answered: 0, syncs: 0, loads: 0, fallbacks: 0, loadMs: 0,
    /** First pages the fast path answered (pg-search-fast.ts), and the ones it discarded: the project had moved on. */
    fast: 0, stale: 0,
  };
  /** Per query text, what the statistics statement parsed of it (pg-search-parse-memo.ts), for the fast path. */
  readonly parses = new ParseMemo(PARSES);

  constructor(private readonly db: PgDatabase, readonly budgetBytes: number, sources: readonly CachedListSource[] = [termSource]) {
    this.sources = new Map(sources.map((s) => [s.kind, s]));
  }

  hasSource(kind: string): boolean {
    return this.sources.has(kind);
  }

  /**
   * The lists `wanted` of `project`, at least as new as `seen`, or undefined: the caller takes the SQL path (seqs past
   * int4, another load under way, lists beyond the budget, a failed sync).
   */
  async lists(project: string, wanted: readonly ListRef[], seen: Seen): Promise<Map<string, SeqList> | undefined> {
    if (seen.maxSeq > MAX_INT4) return this.fallback();
    let pc = this.projects.get(project);
    if (!pc) {
      pc = { w: 0, x: 0n, version: -1n, lists: new Map(), chain: Promise.resolve(), loading: false, off: false };
      this.projects.set(project, pc);
    }
    if (pc.off) return this.fallback();
    const keys = wanted.map(refKey);
    const fresh = () => pc.w >= seen.maxSeq && pc.x >= BigInt(seen.change) && pc.version >= BigInt(seen.version);
    if (!(keys.every((k) => pc.lists.has(k)) && fresh())) {
      if (pc.loading && keys.some((k) => !pc.lists.has(k))) return this.fallback();
      const run = pc.chain.then(() => this.sync(project, pc, keys));
      pc.chain = run.catch(() => undefined);
      try {
        await run;
      } catch {
        return this.fallback();
      }
      if (!(keys.every((k) => pc.lists.has(k)) && fresh())) return this.fallback();
    }
    const out = new Map<string, SeqList>();
    for (const [i, k] of keys.entries()) {
      const lk = `${project}\u0000${k}`;
      const bytes = this.lru.get(lk)!;
      this.lru.delete(lk);
      this.lru.set(lk, bytes);
      out.set(refKey(wanted[i]!), pc.lists.get(k)!);
    }
    this.counters.answered++;
    return out;
  }

  /**
   * The lists `wanted` of `project` as the cache holds them, with the snapshot they reflect — no sync, no I/O — or
   * undefined when one is missing (or the project is not cached). The caller checks the snapshot is still the
   * project's state before trusting them.
   */
  peek(project: string, wanted: readonly ListRef[]): Peeked | undefined {
    const pc = this.projects.get(project);
    if (!pc || pc.off || !pc.state) return undefined;
    const lists = new Map<string, SeqList>();
    for (const r of wanted) {
      const k = refKey(r);
      const list = pc.lists.get(k);
      if (!list) return undefined;
      lists.set(k, list);
    }
    for (const k of lists.keys()) {
      const lk = `${project}\u0000${k}`;
      const bytes = this.lru.get(lk)!;
      this.lru.delete(lk);
      this.lru.set(lk, bytes);
    }
    return { lists, state: pc.state };
  }

  private fallback(): undefined {
    this.counters.fallbacks++;
    return undefined;
  }

  /** Brings the project's lists to one new snapshot and loads `keys` missing from them (or all, on a reload). */
  private async sync(project: string, pc: ProjectCache, keys: readonly string[]): Promise<void> {
    const missing = keys.filter((k) => !pc.lists.has(k));
    if (missing.length) pc.loading = true;
    const started = Date.now();
    try {
      const next = await this.db.transaction(async (tx) => {
        const [r] = await tx.query<{ w: string | null; x: string | null; floor: string | null; v: string | null; nodes: string | null; changed: string | null; n: string }>(
          `SELECT (SELECT posted_up_to FROM wg_knowledge_projects WHERE project = $1)::text AS w,
             (SELECT max(id) FROM wg_knowledge_changes WHERE project = $1)::text AS x,
             (SELECT floor FROM wg_knowledge_change_floors WHERE project = $1)::text AS floor,
             (SELECT version FROM wg_knowledge_projects WHERE project = $1)::text AS v,
             (SELECT ${postedNodes('$1')} FROM wg_knowledge_projects j WHERE j.project = $1)::text AS nodes,
             c.changed, c.n::text AS n
           FROM (SELECT string_agg(DISTINCT seq::text, ',') AS changed, count(*) AS n FROM (
                   SELECT seq FROM wg_knowledge_changes WHERE project = $1 AND id > $2::bigint LIMIT ${RELOAD_CHANGES + 1}) s) c`,
          [project, pc.x.toString()],
        );
        const w = Math.max(Number(r?.w ?? 0), pc.w);
        if (w > MAX_INT4) return { off: true as const };
        const reload = pc.lists.size > 0 && (BigInt(r?.floor ?? 0) > pc.x || Number(r?.n ?? 0) > RELOAD_CHANGES);
        const changed = reload || !r?.changed ? new Int32Array(0) : Int32Array.from(r.changed.split(','), Number).sort();
        const toLoad = reload ? [...new Set([...pc.lists.keys(), ...missing])] : missing;
        const toRefresh = reload ? [] : [...pc.lists.keys()].filter((k) => changed.length > 0 || w > pc.w);
        const loaded = await this.byKind(toLoad, (src, ks) => src.load(tx, project, ks, w));
        const refreshed = await this.byKind(toRefresh, (src, ks) => src.refresh(tx, project, ks, changed, pc.w, w));
        const state: SyncedState = { maxSeq: r?.w ?? '0', change: r?.x ?? '0', version: r?.v ?? '0', nodes: Number(r?.nodes ?? 0) };
        return { off: false as const, w, x: BigInt(r?.x ?? 0), version: BigInt(r?.v ?? 0), state, reload, changed, loaded, refreshed, toRefresh };
      }, 'repeatable read');
      this.counters.syncs++;
      if (next.off) {
        pc.off = true;
        pc.state = undefined;
        for (const k of [...pc.lists.keys()]) this.drop(project, pc, k);
        return;
      }
      // Applied at once (no await from here on): a query sees the lists before or after, never half of it.
      if (next.reload) for (const k of [...pc.lists.keys()]) this.drop(project, pc, k);
      for (const k of next.toRefresh) {
        const list = pc.lists.get(k);
        if (list) this.put(project, pc, k, mergeList(list, next.changed, next.refreshed.get(k) ?? { seqs: new Int32Array(0), ...(list.impacts ? { impacts: new Float32Array(0) } : {}) }));
      }
      for (const [k, list] of next.loaded) this.put(project, pc, k, list);
      if (next.loaded.size) {
        this.counters.loads++;
        this.counters.loadMs += Date.now() - started;
      }
      [pc.w, pc.x, pc.version] = [next.w, next.x > pc.x ? next.x : pc.x, next.version > pc.version ? next.version : pc.version];
      pc.state = next.state;
      this.evict(new Set(keys.map((k) => `${project}\u0000${k}`)));
    } finally {
      pc.loading = false;
    }
  }

  /** Runs `fn` per source over its keys (`kind \0 key`), the results keyed back by `kind \0 key`. */
  private async byKind(
    keys: readonly string[],
    fn: (src: CachedListSource, keys: string[]) => Promise<Map<string, SeqList>>,
  ): Promise<Map<string, SeqList>> {
    const groups = new Map<string, string[]>();
    for (const k of keys) {
      const [kind, key] = k.split('\u0000') as [string, string];
      groups.set(kind, [...(groups.get(kind) ?? []), key]);
    }
    const out = new Map<string, SeqList>();
    for (const [kind, ks] of groups) {
      const src = this.sources.get(kind);
      if (!src) throw new Error(`search cache: no list source '${kind}'`);
      for (const [key, list] of await fn(src, ks)) out.set(`${kind}\u0000${key}`, list);
    }
    return out;
  }

  private put(project: string, pc: ProjectCache, k: string, list: SeqList): void {
    const lk = `${project}\u0000${k}`;
    this.bytes -= this.lru.get(lk) ?? 0;
    this.lru.delete(lk);
    // The bitmap of a dense list is made here, at sync time, and counted with it.
    const bytes = listBytes(list) + denseBytes(list.seqs, list.impacts) + (list.impacts ? highBytes(list.seqs, list.impacts) : 0);
    this.lru.set(lk, bytes);
    this.bytes += bytes;
    pc.lists.set(k, list);
  }

  private drop(project: string, pc: ProjectCache, k: string): void {
    const lk = `${project}\u0000${k}`;
    this.bytes -= this.lru.get(lk) ?? 0;
    this.lru.delete(lk);
    pc.lists.delete(k);
  }

  /** Least recently used lists go until the budget holds; the current query's go last (and then it falls back). */
  private evict(pinned: ReadonlySet<string>): void {
    for (const pass of [false, true]) {
      for (const lk of [...this.lru.keys()]) {
        if (this.bytes <= this.budgetBytes) return;
        if (!pass && pinned.has(lk)) continue;
        const [project, kind, key] = lk.split('\u0000') as [string, string, string];
        const pc = this.projects.get(project);
        if (pc) this.drop(project, pc, `${kind}\u0000${key}`);
        else {
          this.bytes -= this.lru.get(lk)!;
          this.lru.delete(lk);
        }
      }
    }
  }
}
