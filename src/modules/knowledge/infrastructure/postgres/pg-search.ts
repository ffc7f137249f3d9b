import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { KnowledgeSearchPage, KnowledgeSearchQuery } from '../../application/ports/knowledge-store';
import type { QueryItem, SearchQuery } from '../../domain/search';
import type { StoredKnowledgeNode } from '../../domain/knowledge-node';
import { InvalidArgumentsError } from '../../../../kernel/errors';

/**
 * search_nodes in PostgreSQL: the parsed query (domain/search/search-query.ts, the files' parse) becomes a tsquery —
 * each word and phrase through websearch_to_tsquery('english', …), each prefix through to_tsquery('english', 'w:*')
 * (websearch syntax has none) — matched against the generated `search` column (GIN index) and ranked by ts_rank with
 * the default weights (thought A 1.0, tags B 0.4, artifacts C 0.2, as the files' FIELD_WEIGHTS) and no length
 * normalization (more occurrences rank higher, as BM25 does on short texts). Pages: rank then seq, newest first on ties; the cursor keeps the first page's highest seq so later
 * pages leave out nodes added since.
 */
export function tsqueryExpr(query: SearchQuery, params: unknown[]): string {
  const item = (it: QueryItem): string => {
    if (it.kind === 'prefix') {
      params.push(`${it.word}:*`);
      return `to_tsquery('english', $${params.length})`;
    }
    params.push(it.kind === 'word' ? it.word : `"${it.words.join(' ')}"`);
    return `websearch_to_tsquery('english', $${params.length})`;
  };
  return query.groups
    .map((g) => {
      const alt = g.items.map(item).join(' || ');
      return g.negated ? `!!(${alt})` : `(${alt})`;
    })
    .join(' && ');
}

const PREFIX = 'p1.';

function encodeCursor(c: { w: string; s: string; o: string }): string {
  return PREFIX + Buffer.from(JSON.stringify([c.w, c.s, c.o]), 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): { w: string; s: string; o: string } {
  const bad = () => new InvalidArgumentsError(`cursor: '${cursor.slice(0, 40)}' is not a cursor returned by search_nodes`, 'cursor');
  if (!cursor.startsWith(PREFIX)) throw bad();
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(cursor.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => typeof x === 'string' && /^-?[0-9.e+-]+$/i.test(x))) throw bad();
  return { w: v[0], s: v[1], o: v[2] };
}

export async function pgSearch(sql: SqlRunner, project: string, q: KnowledgeSearchQuery, totalCap: number): Promise<KnowledgeSearchPage> {
  const cursor = q.cursor !== undefined ? decodeCursor(q.cursor) : undefined;
  const params: unknown[] = [project];
  const tsq = tsqueryExpr(q.query, params);
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const filters =
    (q.role !== undefined ? ` AND n.node->>'role' = ${p(q.role)}` : '') +
    (q.tags?.length ? ` AND ARRAY(SELECT json_array_elements_text(n.node->'tags')) @> ${p([...q.tags])}::text[]` : '') +
    (q.sinceMs !== undefined ? ` AND n.node->>'createdAt' >= ${p(new Date(q.sinceMs).toISOString())}` : '') +
    (q.untilMs !== undefined ? ` AND n.node->>'createdAt' <= ${p(new Date(q.untilMs).toISOString())}` : '');
  const watermark = cursor
    ? cursor.w
    : ((await sql.query<{ w: string | null }>('SELECT max(seq)::text AS w FROM wg_knowledge_nodes WHERE project = $1', [project]))[0]?.w ?? '0');
  const w = p(watermark);
  const live = `SELECT n.node, ts_rank(n.search, tq.q) AS rank, n.seq AS ord, false AS deleted
      FROM wg_knowledge_nodes n, tq WHERE n.project = $1 AND n.search @@ tq.q AND n.seq <= ${w}::bigint${filters}`;
  const deleted = q.includeDeleted
    ? ` UNION ALL SELECT n.node, ts_rank(wg_knowledge_vector(n.node), tq.q), -d.seq, true
        FROM wg_knowledge_deleted d CROSS JOIN LATERAL (SELECT d.record->'nodeData' AS node) n, tq
        WHERE d.project = $1 AND wg_knowledge_vector(n.node) @@ tq.q${filters}`
    : '';
  const matchParams = [...params];
  const after = cursor ? ` WHERE (h.rank, h.ord) < (${p(cursor.s)}::real, ${p(cursor.o)}::bigint)` : '';
  const limit = p(q.limit + 1);
  const rows = await sql.query<{ node: StoredKnowledgeNode; rank: number; rank_text: string; ord: string; deleted: boolean }>(
    `WITH tq AS (SELECT ${tsq} AS q)
     SELECT h.node, h.rank, h.rank::text AS rank_text, h.ord::text AS ord, h.deleted
     FROM (${live}${deleted}) h${after}
     ORDER BY h.rank DESC, h.ord DESC LIMIT ${limit}`,
    params,
  );
  const more = rows.length > q.limit;
  const page = more ? rows.slice(0, q.limit) : rows;
  const last = page[page.length - 1];
  // The total apart from the page, counting no further than the cap (past it: a lower bound).
  const capAt = matchParams.length + 1;
  const [counted] = await sql.query<{ n: string }>(
    `WITH tq AS (SELECT ${tsq} AS q)
     SELECT count(*)::text AS n FROM (SELECT 1 FROM (${live}${deleted}) h LIMIT $${capAt}) c`,
    [...matchParams, totalCap + 1],
  );
  const n = Number(counted?.n ?? 0);
  const totalExact = n <= totalCap;
  const total = totalExact ? n : totalCap;
  return {
    hits: page.map((r) => ({ node: r.node, score: Number(r.rank), deleted: r.deleted, after: encodeCursor({ w: watermark, s: r.rank_text, o: r.ord }) })),
    nextCursor: more && last ? encodeCursor({ w: watermark, s: last.rank_text, o: last.ord }) : null,
    total,
    totalExact,
  };
}
