import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import { InvalidArgumentsError, StorageError, WorkgraphError } from '../../../../kernel/errors';
import type { StoredKnowledgeNode } from '../../domain/knowledge-node';
import { searchLimitBreach } from '../../domain/search/search-limits';

/** Rows inserted per statement: big enough for imports, small enough for the 1 GB parameter limit. */
export const INSERT_BATCH = 2_000;

/**
 * The ids a summary names — its segment and every id of its history — kept in the `mentions` column so "summaries
 * mentioning these ids" is one index lookup. Other roles mention nothing.
 */
export function mentionsOf(node: StoredKnowledgeNode): string[] {
  if (node.role !== 'summary') return [];
  const ids = new Set(node.summarizedSegment ?? []);
  for (const v of node.summaryHistory ?? []) {
    for (const id of v.summarizedSegment ?? []) ids.add(id);
    for (const id of v.deletedNodeIds ?? []) ids.add(id);
  }
  return [...ids];
}

/**
 * Inserts nodes with the given sequence numbers (one statement per batch: the columns travel as parallel arrays, the
 * node itself as its JSON text so it reads back exactly). Returns the bytes of JSON written. The search vector is left
 * to the search's catch-up (knowledge migration 16) unless `vectors`: a bulk import computes it here, so its rows are
 * written once, not inserted and then updated by the catch-up that follows it.
 */
export async function insertNodes(tx: SqlRunner, project: string, nodes: readonly StoredKnowledgeNode[], seqs: readonly string[], vectors = false): Promise<number> {
  let bytes = 0;
  for (let i = 0; i < nodes.length; i += INSERT_BATCH) {
    const batch = nodes.slice(i, i + INSERT_BATCH);
    const json = batch.map((n) => JSON.stringify(n));
    for (const j of json) bytes += Buffer.byteLength(j) + 1;
    try {
      await tx.query(
        `INSERT INTO wg_knowledge_nodes (project, id, seq, role, tags, parents, mentions, node${vectors ? ', search' : ''})
         SELECT $1, u.id, u.seq, u.role,
                ARRAY(SELECT json_array_elements_text(u.tags::json)),
                ARRAY(SELECT json_array_elements_text(u.parents::json)),
                ARRAY(SELECT json_array_elements_text(u.mentions::json)),
                u.node::json${vectors ? ', wg_knowledge_vector(u.node::json)' : ''}
         FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) AS u(id, seq, role, tags, parents, mentions, node)`,
        [
          project,
          batch.map((n) => n.id),
          seqs.slice(i, i + INSERT_BATCH),
          batch.map((n) => n.role),
          batch.map((n) => JSON.stringify(n.tags)),
          batch.map((n) => JSON.stringify(n.parents)),
          batch.map((n) => JSON.stringify(mentionsOf(n))),
          json,
        ],
      );
    } catch (e) {
      throw pastSearchLimits(e, batch) ?? e;
    }
  }
  return bytes;
}

/**
 * A write that PostgreSQL refused for its search column — a tsvector over its 1 MB limit (54000), or one too slow to
 * build (57014, the statement timeout) — names the nodes past the search limits and why, when some are: add_nodes
 * refuses those before writing, so only a write bypassing it (`db import` of a data dir holding such a node) gets here.
 * (Since knowledge migration 16 an insert leaves the vector to the search's catch-up, but computes it for a node past
 * EAGER_VECTOR_BYTES, the only size at which it can fail: so it fails here, never in a later search.)
 */
function pastSearchLimits(e: unknown, batch: readonly StoredKnowledgeNode[]): StorageError | undefined {
  const state = e instanceof WorkgraphError ? e.details.sqlState : undefined;
  if (state !== '54000' && state !== '57014') return undefined;
  // (Only the limits of size: a node past the word or repeat limits is indexed, within PostgreSQL's limits.)
  const past = batch.flatMap((n) => {
    const b = searchLimitBreach(n);
    return b && (b.limit === 'indexBytes' || b.limit === 'thoughtLength') ? [{ id: n.id, why: b.message.split(';')[0]! }] : [];
  });
  if (!past.length) return undefined;
  const named = past.map((p) => `'${p.id}' (${p.why})`).join(', ');
  return new StorageError(`knowledge node(s) ${named} past the search limits (docs/knowledge-graph.md "Search limits"): ${(e as Error).message}`, { sqlState: state, nodes: past.map((p) => p.id) }, { cause: e });
}

/** `n` fresh sequence numbers, ascending (as strings: bigint). */
export async function nextSeqs(tx: SqlRunner, n: number): Promise<string[]> {
  if (n === 0) return [];
  const rows = await tx.query<{ s: string }>(`SELECT nextval('wg_knowledge_seq')::text AS s FROM generate_series(1, $1::int)`, [n]);
  return rows.map((r) => r.s).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
}

/** `list_nodes` cursors of this store: the `seq` the next (older) page starts below. Never stale: seqs only grow. */
const CURSOR_PREFIX = 'kp1.';

export function encodeSeqCursor(seq: string): string {
  return CURSOR_PREFIX + Buffer.from(seq, 'utf8').toString('base64url');
}

export function decodeSeqCursor(cursor: string): string {
  const seq = cursor.startsWith(CURSOR_PREFIX) ? Buffer.from(cursor.slice(CURSOR_PREFIX.length), 'base64url').toString('utf8') : '';
  if (!/^\d{1,19}$/.test(seq)) throw new InvalidArgumentsError(`cursor: '${cursor.slice(0, 40)}' is not a cursor returned by list_nodes`, 'cursor');
  return seq;
}
