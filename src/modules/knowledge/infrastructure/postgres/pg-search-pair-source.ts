import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import { InvalidArgumentsError } from '../../../../kernel/errors';
import { PAIR_CHUNK } from './knowledge-pair-migration';

/**
 * A neighbouring pair's nodes as a sorted list of seqs, for a search cache that intersects lists in the server
 * process. A pair `'a b'` (two lexemes, as migration 9's wg_knowledge_pair_seqs keys them) is what `'a' <-> 'b'`
 * matches: nodes whose stored vector holds b at a position right after one of a's. Its seqs come from the pair
 * lists for the project's listed (complete) chunks and through GIN (`search @@ 'a' <-> 'b'`) for the others — the
 * newest chunk, and any the seqs have passed that no build has listed yet: those are listed first by
 * wg_knowledge_pairs_build, as the phrase count does (pg-search-phrase-count.ts), unless a writer holds the project's
 * lock (SKIP LOCKED: then they are read through GIN this time, still exact).
 *
 * Transfer: one statement in the common case, answering each listed chunk as `chunk:off,off,…` in one text and the
 * GIN part as one text of seqs, expanded here (pg's array parsing of ~13,000 smallints costs more than the split).
 */

/** A pair's tsquery text, `'a' <-> 'b'`, its lexemes quoted (quotes and backslashes doubled, as tsquery input reads them). */
export function pairTsquery(pair: string): string {
  const space = pair.indexOf(' ');
  if (space <= 0 || space === pair.length - 1 || pair.indexOf(' ', space + 1) >= 0) throw new InvalidArgumentsError(`pair: expected two lexemes 'a b', got '${pair}'`, 'pair');
  const lit = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  return `${lit(pair.slice(0, space))} <-> ${lit(pair.slice(space + 1))}`;
}

/** Seqs above this do not fit the cache's Int32Array lists. */
const MAX_SEQ = 2 ** 31 - 1;

function checkSeq(name: string, n: number): void {
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_SEQ) throw new InvalidArgumentsError(`${name}: expected a seq from 0 to ${MAX_SEQ}, got ${n}`, name);
}

/** Parses `seq,seq,…` (ascending) into `out` from `at`; answers the next free index. */
function parseSeqs(text: string | null, out: Int32Array, at: number): number {
  if (!text) return at;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 44) {
      out[at++] = n;
      n = 0;
    } else n = n * 10 + (c - 48);
  }
  out[at++] = n;
  return at;
}

/** Numbers in a `,`/`;`/`:`-separated text: an upper bound of the seqs it expands to. */
function countNumbers(text: string | null): number {
  if (!text) return 0;
  let n = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 44 || c === 59) n++;
  }
  return n;
}

/** Expands `chunk:off,off;chunk:off,…` (chunks ascending, offsets ascending) to seqs ≤ upTo into `out` from `at`. */
function expandListed(text: string | null, upTo: number, out: Int32Array, at: number): number {
  if (!text) return at;
  let base = 0;
  let n = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 59;
    if (c === 58) {
      base = n * PAIR_CHUNK;
      n = 0;
    } else if (c === 44 || c === 59) {
      const seq = base + n;
      if (seq <= upTo) out[at++] = seq;
      n = 0;
    } else n = n * 10 + (c - 48);
  }
  return at;
}

/** Chunks not listed from which their rows are found through GIN rather than by seq. */
const GIN_FROM_CHUNKS = 3;

const READ = (guard: string) => `
  WITH c AS (SELECT coalesce((SELECT below FROM wg_knowledge_pair_chunks WHERE project = $1), 0) AS below)
  SELECT k.pair, c.below::text AS below,
    (SELECT string_agg(s.chunk::text || ':' || array_to_string(s.seqs, ','), ';' ORDER BY s.chunk) FROM wg_knowledge_pair_seqs s
      WHERE s.project = $1 AND s.pair = k.pair COLLATE "C" AND s.chunk < c.below AND s.chunk * ${PAIR_CHUNK} <= $3::bigint AND cardinality(s.seqs) > 0${guard}) AS listed,
    CASE WHEN $3::bigint / ${PAIR_CHUNK} - c.below < ${GIN_FROM_CHUNKS} THEN
      -- A chunk or two: their rows by seq, each vector checked (fenced by OFFSET 0: ANDed with the GIN index's bitmap
      -- of both words instead, the plan PostgreSQL prefers, it took 100 ms at 1,000,000 nodes for 577 rows).
      (SELECT string_agg(r.seq::text, ',' ORDER BY r.seq) FROM (SELECT n.seq, n.search FROM wg_knowledge_nodes n
        WHERE n.project = $1 AND n.seq >= c.below * ${PAIR_CHUNK} AND n.seq <= $3::bigint${guard} OFFSET 0) r WHERE r.search @@ k.q::tsquery)
    ELSE (SELECT string_agg(n.seq::text, ',' ORDER BY n.seq) FROM wg_knowledge_nodes n
      WHERE n.project = $1 AND n.seq >= c.below * ${PAIR_CHUNK} AND n.seq <= $3::bigint AND n.search @@ k.q::tsquery${guard}) END AS fresh
  FROM c, unnest($2::text[], $4::text[]) WITH ORDINALITY k(pair, q, i) ORDER BY k.i`;
/** Reads nothing when chunks up to upTo are due a build (the caller builds, then reads without the guard). */
const READ_UNLESS_DUE = { name: 'wg_pair_source_read_guarded', text: READ(` AND $3::bigint / ${PAIR_CHUNK} <= c.below`) };
const READ_ANYWAY = { name: 'wg_pair_source_read', text: READ('') };

interface Row {
  pair: string;
  below: string;
  listed: string | null;
  fresh: string | null;
}

const due = (rows: readonly Row[], upTo: number) => rows.length > 0 && Math.floor(upTo / PAIR_CHUNK) > Number(rows[0]!.below);

function lists(rows: readonly Row[], upTo: number): Map<string, Int32Array> {
  const out = new Map<string, Int32Array>();
  for (const row of rows) {
    const seqs = new Int32Array(countNumbers(row.listed) + countNumbers(row.fresh));
    out.set(row.pair, seqs.subarray(0, parseSeqs(row.fresh, seqs, expandListed(row.listed, upTo, seqs, 0))));
  }
  return out;
}

/**
 * The live nodes of `project` with seq ≤ `upTo` that hold each of `pairs` (`'a b'`, lexemes), as ascending seqs:
 * exactly what `search @@ 'a' <-> 'b'` matches up to upTo. `build`: 'now' lists the oldest chunk the seqs have
 * passed first (one a call, migration 11; the others still due read through GIN), through `sql` (a READ COMMITTED
 * caller: the build's statement after its lock sees every committed write);
 * 'no' reads them through GIN and answers whether a build is due (a caller inside a longer snapshot, which must not
 * take the project's row lock there: it builds on a connection of its own, for the next reads).
 */
export async function pairLists(
  sql: SqlRunner,
  project: string,
  pairs: readonly string[],
  upTo: number,
  build: 'now' | 'no',
): Promise<{ lists: Map<string, Int32Array>; due: boolean }> {
  checkSeq('upTo', upTo);
  if (!pairs.length) return { lists: new Map(), due: false };
  const args = [project, pairs, String(upTo), pairs.map(pairTsquery)];
  if (build === 'no') {
    const rows = await sql.query<Row>(READ_ANYWAY, args);
    return { lists: lists(rows, upTo), due: due(rows, upTo) };
  }
  let rows = await sql.query<Row>(READ_UNLESS_DUE, args);
  if (due(rows, upTo)) {
    // Chunks the seqs have passed and no build has listed yet: list them now (skipped while a writer holds the
    // project's lock: then read through GIN, as the phrase count does).
    await sql.query(`SELECT wg_knowledge_pairs_build($1)`, [project]);
    rows = await sql.query<Row>(READ_ANYWAY, args);
  }
  return { lists: lists(rows, upTo), due: false };
}

/** One pair's list (pairLists, building what is due first). */
export async function pairSeqs(sql: SqlRunner, project: string, pair: string, upTo: number): Promise<Int32Array> {
  return (await pairLists(sql, project, [pair], upTo, 'now')).lists.get(pair) ?? new Int32Array(0);
}

/**
 * The refresh of pairs' lists: of the seqs `changed` (deleted, updated or restored since the lists were read) and
 * those in (`after`, `upTo`] (added since), the ones whose row holds each pair now, ascending. The caller drops
 * `changed` from its lists and merges these in. One statement: the rows read once, each pair's tsquery run on them.
 */
export async function pairRefresh(
  sql: SqlRunner,
  project: string,
  pairs: readonly string[],
  changed: ArrayLike<number>,
  after: number,
  upTo: number,
): Promise<Map<string, Int32Array>> {
  checkSeq('upTo', upTo);
  checkSeq('after', after);
  if (!pairs.length) return new Map();
  const rows = await sql.query<{ pair: string; seqs: string | null }>(
    {
      name: 'wg_pair_source_refresh',
      text: `WITH r AS MATERIALIZED (SELECT n.seq, n.search FROM wg_knowledge_nodes n
               WHERE n.project = $1 AND n.seq <= $5::bigint AND (n.seq = ANY($3::bigint[]) OR n.seq > $4::bigint))
             SELECT k.pair, (SELECT string_agg(r.seq::text, ',' ORDER BY r.seq) FROM r WHERE r.search @@ k.q::tsquery) AS seqs
             FROM unnest($2::text[], $6::text[]) WITH ORDINALITY k(pair, q, i) ORDER BY k.i`,
    },
    [project, pairs, Array.from(changed, String), String(after), String(upTo), pairs.map(pairTsquery)],
  );
  const out = new Map<string, Int32Array>();
  for (const r of rows) {
    const seqs = new Int32Array(countNumbers(r.seqs));
    out.set(r.pair, seqs.subarray(0, parseSeqs(r.seqs, seqs, 0)));
  }
  return out;
}

/**
 * Of the seqs `seqs`, up to `upTo`, the ones whose live row matches the tsquery `tsquery` (its text, e.g.
 * `'a' <-> 'b' <-> 'c'`), ascending: the check of a longer phrase's candidates (the AND of its pairs is a superset).
 */
export async function holding(sql: SqlRunner, project: string, tsquery: string, seqs: ArrayLike<number>, upTo: number): Promise<Int32Array> {
  checkSeq('upTo', upTo);
  if (!seqs.length) return new Int32Array(0);
  const [row] = await sql.query<{ seqs: string | null }>(
    {
      name: 'wg_pair_source_holding',
      // The rows by seq, then their vectors checked (OFFSET 0: not ANDed with the GIN index's bitmap of the words).
      text: `SELECT string_agg(r.seq::text, ',' ORDER BY r.seq) AS seqs FROM (SELECT n.seq, n.search FROM wg_knowledge_nodes n
             WHERE n.project = $1 AND n.seq = ANY($2::bigint[]) AND n.seq <= $3::bigint OFFSET 0) r WHERE r.search @@ $4::tsquery`,
    },
    [project, Array.from(seqs, String), String(upTo), tsquery],
  );
  const out = new Int32Array(countNumbers(row?.seqs ?? null));
  return out.subarray(0, parseSeqs(row?.seqs ?? null, out, 0));
}
