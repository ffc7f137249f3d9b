import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { KnowledgePage, KnowledgePageQuery, KnowledgeReader, KnowledgeSearchPage, KnowledgeSearchQuery, KnowledgeStats } from '../../application/ports/knowledge-store';
import { pgSearch } from './pg-search';
import type { PgSearchCache } from './pg-search-cache';
import { SEARCH_TOTAL_CAP } from '../../domain/search';
import type { DeletedNodeRecord, StoredKnowledgeNode } from '../../domain/knowledge-node';
import { decodeSeqCursor, encodeSeqCursor } from './pg-node-rows';

/**
 * The queries of one project in PostgreSQL, each one indexed statement: pages walk `(project, seq DESC)`, dependents
 * and children use the GIN index on `parents`, summaries the one on `mentions`. Run on the pool (lock-free reads of
 * committed data) or, for a writer, on its transaction.
 */
export class PgKnowledgeReader implements KnowledgeReader {
  constructor(
    protected readonly sql: SqlRunner,
    protected readonly project: string,
    private readonly searchTotalCap = SEARCH_TOTAL_CAP,
    /** The store's search cache (pool readers only: a writer's transaction sees its own uncommitted rows). */
    private readonly searchCache?: PgSearchCache,
  ) {}

  async search(query: KnowledgeSearchQuery): Promise<KnowledgeSearchPage> {
    return pgSearch(this.sql, this.project, query, this.searchTotalCap, 'auto', this.searchCache);
  }

  async page(query: KnowledgePageQuery): Promise<KnowledgePage> {
    const below = query.cursor !== undefined ? decodeSeqCursor(query.cursor) : null;
    const rows = await this.sql.query<{ node: StoredKnowledgeNode; at: string }>(
      `SELECT node, seq::text AS at FROM wg_knowledge_nodes
       WHERE project = $1 AND ($2::bigint IS NULL OR seq < $2::bigint)
         AND ($3::text IS NULL OR role = $3) AND tags @> $4::text[]
         AND ($5::text IS NULL OR strpos(lower(node->>'thought'), $5) > 0)
       ORDER BY seq DESC LIMIT $6`,
      [this.project, below, query.role ?? null, query.tags ?? [], query.text?.toLowerCase() ?? null, query.limit + 1],
    );
    const more = rows.length > query.limit;
    const page = more ? rows.slice(0, query.limit) : rows;
    return { nodes: page.map((r) => r.node), nextCursor: more ? encodeSeqCursor(page[page.length - 1]!.at) : null, malformedCount: 0 };
  }

  async get(id: string): Promise<{ node: StoredKnowledgeNode; children: string[] } | undefined> {
    const rows = await this.sql.query<{ node: StoredKnowledgeNode }>('SELECT node FROM wg_knowledge_nodes WHERE project = $1 AND id = $2', [this.project, id]);
    if (!rows.length) return undefined;
    const children = await this.sql.query<{ id: string }>(
      'SELECT id FROM wg_knowledge_nodes WHERE project = $1 AND parents @> ARRAY[$2::text] AND id <> $2 ORDER BY seq',
      [this.project, id],
    );
    return { node: rows[0]!.node, children: children.map((c) => c.id) };
  }

  async findByIds(ids: ReadonlySet<string>): Promise<Map<string, StoredKnowledgeNode>> {
    const found = new Map<string, StoredKnowledgeNode>();
    if (ids.size === 0) return found;
    const rows = await this.sql.query<{ node: StoredKnowledgeNode }>('SELECT node FROM wg_knowledge_nodes WHERE project = $1 AND id = ANY($2::text[])', [this.project, [...ids]]);
    for (const r of rows) found.set(r.node.id, r.node);
    return found;
  }

  /** One indexed lookup per generation of descendants (the frontier's children), in insertion order. */
  async findDependents(ids: readonly string[]) {
    const found = await this.findByIds(new Set(ids));
    const closure = new Set(ids);
    const dependents = new Map<string, StoredKnowledgeNode>();
    let frontier = [...ids];
    while (frontier.length) {
      const rows = await this.sql.query<{ node: StoredKnowledgeNode }>(
        'SELECT node FROM wg_knowledge_nodes WHERE project = $1 AND parents && $2::text[] ORDER BY seq',
        [this.project, frontier],
      );
      frontier = [];
      for (const { node } of rows) {
        if (closure.has(node.id)) continue;
        closure.add(node.id);
        dependents.set(node.id, node);
        frontier.push(node.id);
      }
    }
    return { found, dependents };
  }

  async findSummariesMentioning(ids: ReadonlySet<string>): Promise<StoredKnowledgeNode[]> {
    if (ids.size === 0) return [];
    const rows = await this.sql.query<{ node: StoredKnowledgeNode }>(
      `SELECT node FROM wg_knowledge_nodes WHERE project = $1 AND role = 'summary' AND mentions && $2::text[] ORDER BY seq`,
      [this.project, [...ids]],
    );
    return rows.map((r) => r.node);
  }

  async deleted(query: { nodeIds?: ReadonlySet<string>; limit?: number } = {}): Promise<{ records: DeletedNodeRecord[]; total: number }> {
    const ids = query.nodeIds ? [...query.nodeIds] : null;
    const where = 'project = $1 AND ($2::text[] IS NULL OR node_id = ANY($2::text[]))';
    const rows = await this.sql.query<{ record: DeletedNodeRecord }>(
      `SELECT record FROM wg_knowledge_deleted WHERE ${where} ORDER BY seq DESC LIMIT $3`,
      [this.project, ids, query.limit ?? null],
    );
    const total = rows.length < (query.limit ?? Infinity)
      ? rows.length
      : Number((await this.sql.query<{ n: string }>(`SELECT count(*) AS n FROM wg_knowledge_deleted WHERE ${where}`, [this.project, ids]))[0]!.n);
    return { records: rows.map((r) => r.record), total };
  }

  async stats(): Promise<KnowledgeStats | undefined> {
    const rows = await this.sql.query<{ nodes: string; deleted: string }>('SELECT nodes, deleted FROM wg_knowledge_projects WHERE project = $1', [this.project]);
    // A project row is made by the first write under the lock; one that never held anything is no graph.
    if (!rows.length || (rows[0]!.nodes === '0' && rows[0]!.deleted === '0')) return undefined;
    const roles = { actor: 0, critic: 0, summary: 0 };
    for (const r of await this.sql.query<{ role: keyof typeof roles; n: string }>('SELECT role, count(*)::text AS n FROM wg_knowledge_nodes WHERE project = $1 GROUP BY role', [this.project])) {
      if (r.role in roles) roles[r.role] = Number(r.n);
    }
    return { nodes: Number(rows[0]!.nodes), deleted: Number(rows[0]!.deleted), malformedCount: 0, roles };
  }
}
