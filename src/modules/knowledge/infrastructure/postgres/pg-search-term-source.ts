import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { CachedListSource, SeqEntries, SeqList } from './pg-search-list-source';

/**
 * The search cache's scored lists: a term's postings (wg_knowledge_postings, migration 5) as seqs ascending with their
 * impacts. One row per term, its entries packed by PostgreSQL as 8 bytes each (int4send of the seq, float4send of the
 * impact: the float4's exact bits, no text to parse) into one bytea — a list of 300,000 postings crosses as one 2.4 MB
 * value. A refresh reads the changed and appended nodes' postings through wg_knowledge_postings_of, the function
 * the postings trigger itself uses, so their impacts are the stored ones bit for bit.
 */
export const termSource: CachedListSource = {
  kind: 'term',

  async load(sql: SqlRunner, project: string, keys: readonly string[], upTo: number): Promise<Map<string, SeqList>> {
    const rows = await sql.query<{ term: string; data: Buffer | null }>(
      `SELECT k.term, (SELECT string_agg(int4send(p.seq::int) || float4send(p.impact), ''::bytea ORDER BY p.seq)
                       FROM wg_knowledge_postings p WHERE p.project = $1 AND p.term = k.term AND p.seq <= $3::bigint) AS data
       FROM unnest($2::text[]) k(term)`,
      [project, keys, upTo],
    );
    return new Map(rows.map((r) => [r.term, unpack(r.data)]));
  },

  async refresh(sql: SqlRunner, project: string, keys: readonly string[], changed: Int32Array, after: number, upTo: number): Promise<Map<string, SeqEntries>> {
    const rows = await sql.query<{ term: string; data: Buffer | null }>(
      `SELECT p.term, string_agg(int4send(n.seq::int) || float4send(p.impact), ''::bytea ORDER BY n.seq) AS data
       FROM wg_knowledge_nodes n, wg_knowledge_postings_of(n.search) p
       WHERE n.project = $1 AND (n.seq = ANY($3::bigint[]) OR (n.seq > $4::bigint AND n.seq <= $5::bigint)) AND p.term = ANY($2::text[])
       GROUP BY p.term`,
      [project, keys, Array.from(changed, String), after, upTo],
    );
    return new Map(rows.map((r) => [r.term, unpack(r.data)]));
  },
};

/** 8-byte entries (big-endian int4 seq, float4 impact) as a SeqList. */
export function unpack(data: Buffer | null): SeqList {
  const n = data ? data.length >>> 3 : 0;
  const seqs = new Int32Array(n);
  const impacts = new Float32Array(n);
  if (data) {
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    for (let i = 0, o = 0; i < n; i++, o += 8) {
      seqs[i] = view.getInt32(o);
      impacts[i] = view.getFloat32(o + 4);
    }
  }
  return { seqs, impacts };
}
