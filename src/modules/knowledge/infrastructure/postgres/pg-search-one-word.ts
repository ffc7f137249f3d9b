import type { SqlRunner } from '../../../../kernel/postgres/pg-database';
import type { KnowledgeSearchPage, KnowledgeSearchQuery } from '../../application/ports/knowledge-store';
import type { StoredKnowledgeNode } from '../../domain/knowledge-node';
import { encodeCursor } from './pg-search-cursor';
import { idfOf, real } from './pg-search-rank';
import { postedNodes } from './pg-search-watermark';

/** Prepared on each connection (named): its planning was half of a one-word search's time at 1,000,000 nodes. */
const ONE_WORD_SQL = `WITH t AS (SELECT DISTINCT u.lexeme AS term FROM unnest(to_tsvector('english', wg_knowledge_words($2))) u),
 s AS (SELECT (SELECT posted_up_to FROM wg_knowledge_projects WHERE project = $1)::text AS w,
     (SELECT ${postedNodes('$1')} FROM wg_knowledge_projects j WHERE j.project = $1)::text AS n,
     (SELECT max(id) FROM wg_knowledge_changes WHERE project = $1)::text AS x,
     (SELECT deleted FROM wg_knowledge_projects WHERE project = $1)::text AS d,
     (SELECT count(*) FROM t)::int AS lexemes, (SELECT min(term) FROM t) COLLATE "C" AS term)
 SELECT s.w, s.n, s.x, s.d, s.lexemes, d.docs::text AS docs, p.impact::text AS impact_text, p.seq::text AS seq_text, x.node
 FROM s LEFT JOIN wg_knowledge_terms d ON s.lexemes = 1 AND d.project = $1 AND d.term = s.term
   LEFT JOIN LATERAL (SELECT p.impact, p.seq FROM wg_knowledge_postings p WHERE s.lexemes = 1 AND p.project = $1 AND p.term = s.term
                      ORDER BY p.impact DESC, p.seq DESC LIMIT $3) p ON true
   LEFT JOIN wg_knowledge_nodes x ON x.project = $1 AND x.seq = p.seq
 ORDER BY p.impact DESC, p.seq DESC`;

/**
 * The first page of a one-word search (no filters, no deleted nodes, no cursor) in one statement: the word's lexeme,
 * the watermark, the project's node count, last change id and deletion record count (the cursor's state), the
 * term's document count (its idf and the exact `total`), and the term's best `limit + 1` postings with their nodes.
 * Every match contains the term, so its postings in (impact, seq) order are the ranking (pg-search-rank.ts: score =
 * idf × impact, the same float8 product as every other path); no heap row is read but the page's. Answers undefined when the word stems to more than one lexeme (the caller's
 * general path handles it).
 */
export async function oneWordFirstPage(sql: SqlRunner, project: string, q: KnowledgeSearchQuery): Promise<KnowledgeSearchPage | undefined> {
  const item = q.query.groups[0]!.items[0]!;
  if (item.kind !== 'word') return undefined;
  const rows = await sql.query<{
    w: string | null;
    n: string | null;
    x: string | null;
    d: string | null;
    lexemes: number;
    docs: string | null;
    impact_text: string | null;
    seq_text: string | null;
    node: StoredKnowledgeNode | null;
  }>(
    { name: 'wg_knowledge_search_one_word', text: ONE_WORD_SQL },
    [project, item.word, q.limit + 1],
  );
  const head = rows[0];
  if (!head || head.lexemes > 1) return undefined;
  const docs = Number(head.docs ?? 0);
  const searched = { w: head.w ?? '0', x: head.x ?? '0', d: head.d ?? '0' };
  const idf = idfOf(Number(head.n ?? 0), docs);
  // Within one statement every posting is of a node in its snapshot: the join finds each.
  const ranked = rows
    .filter((r) => r.seq_text !== null && r.node)
    .map((r) => ({ node: r.node!, score: idf * real(r.impact_text!), ord: r.seq_text! }));
  const more = ranked.length > q.limit;
  const page = more ? ranked.slice(0, q.limit) : ranked;
  const cursorOf = (m: (typeof page)[number]) => encodeCursor(searched, String(m.score), m.ord);
  return {
    hits: page.map((m) => ({ node: m.node, score: m.score, deleted: false, after: cursorOf(m) })),
    nextCursor: more ? cursorOf(page[page.length - 1]!) : null,
    total: head.lexemes === 1 ? docs : 0,
    totalExact: true,
  };
}
