import type { Migration } from '../../../../kernel/postgres/migrations';
import { CHANGES_KEPT } from './knowledge-change-migration';
import { postRows } from './knowledge-posting-migration';
import { catchUpByNewestRow } from './knowledge-watermark-migration';

/**
 * JSON bytes of a node past which the insert still computes its vector (a row trigger's WHEN): up to it a vector stays
 * far inside PostgreSQL's 1 MB tsvector limit (a word of the text yields at most ~5 bytes of vector per byte of text)
 * and takes milliseconds; past it a vector too large or too slow to build fails the write that brings the node, named
 * (pg-node-rows.ts, pastSearchLimits), not a later catch-up — which would then fail every search of the project.
 */
export const EAGER_VECTOR_BYTES = 65_536;

/** The catch-up's posting statement (migration 14's), and before it the vectors of its rows that have none yet. */
const POST = postRows('wg_knowledge_nodes n', 'n.project = proj AND n.seq > upto AND n.seq <= top');
const FILL = `UPDATE wg_knowledge_nodes SET search = wg_knowledge_vector(node)
        WHERE project = proj AND seq > upto AND seq <= top AND search IS NULL;
      `;

/** Migration 15's catch-up function with the vectors computed first, under the same lock. */
function catchUpWithVectors(): string {
  const sql = catchUpByNewestRow();
  if (sql.split(POST).length !== 2) throw new Error('knowledge migration 16: the catch-up function no longer posts its rows as migration 14 did');
  return sql.replace(POST, FILL + POST);
}

/**
 * Knowledge migration 16: the search vector of an appended row computed by the catch-up, not by the insert (issue
 * 23's add bar, the part migration 14 left). The generated column computed `wg_knowledge_vector(node)` in every
 * insert: about half of an add_nodes batch against the schema without a search column (bench/knowledge-add-breakdown-
 * postgres.js: mostly to_tsvector's CPU; its GIN entry and the row's bytes the rest). Now `search` is a plain column:
 * the insert leaves it NULL (a node of more than EAGER_VECTOR_BYTES gets it at once, by a row trigger whose WHEN
 * is the only per-row cost left), and
 * wg_knowledge_postings_catch_up fills the vectors of the rows it is about to post, in the same transaction under the
 * project's row lock, before it posts them from those vectors. Every search reads vectors only at or below its
 * watermark, posted_up_to (the catch-up precedes every statement but the fast path's, which answers only when no row
 * is past it), so no search meets a NULL vector of a row it counts. The column keeps its values (DROP EXPRESSION
 * rewrites nothing): existing rows, posted or not, keep the vectors they have.
 *
 * The fill is an UPDATE of rows past posted_up_to, so the update triggers see it: the postings trigger touches only
 * rows at or below posted_up_to (none of these), the pair trigger puts the rows of listed chunks into their lists (an
 * unposted row there had none: right), and the change log — the caches' record of rows changed below their
 * watermarks — now leaves out rows whose old vector was NULL: never posted, so in no cache's lists (a cache reads
 * the rows past its watermark by seq). An update in place of the node (a summary recalculated) computes the new
 * vector at once, by a row trigger on UPDATE OF node, so the postings trigger posts a posted row again from it, as
 * with the generated column.
 */
export const vectorMigration: Migration = {
  module: 'knowledge',
  version: 16,
  name: 'knowledge search: the vector of an appended row computed by the search (catch-up), not by every add',
  sql: `
    ALTER TABLE wg_knowledge_nodes ALTER COLUMN search DROP EXPRESSION;
    CREATE FUNCTION wg_knowledge_vector_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      NEW.search := wg_knowledge_vector(NEW.node);
      RETURN NEW;
    END $$;
    CREATE TRIGGER wg_knowledge_vector_upd BEFORE UPDATE OF node ON wg_knowledge_nodes
      FOR EACH ROW EXECUTE FUNCTION wg_knowledge_vector_update();
    CREATE TRIGGER wg_knowledge_vector_large BEFORE INSERT ON wg_knowledge_nodes
      FOR EACH ROW WHEN (octet_length(NEW.node::text) > ${EAGER_VECTOR_BYTES}) EXECUTE FUNCTION wg_knowledge_vector_update();
    CREATE OR REPLACE FUNCTION wg_knowledge_changes_log() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      p record;
      cut bigint;
      logged bigint;
    BEGIN
      IF TG_OP = 'UPDATE' THEN
        -- (Rows whose old vector is NULL were never posted: in no cache's lists. An update keeps a row's seq.)
        INSERT INTO wg_knowledge_changes (project, id, seq)
        SELECT c.project, nextval('wg_knowledge_change_seq'), c.seq FROM (
          SELECT o.project, o.seq FROM old_rows o UNION SELECT n.project, n.seq FROM new_rows n
          EXCEPT SELECT o.project, o.seq FROM old_rows o WHERE o.search IS NULL ORDER BY 1, 2) c;
      ELSE
        INSERT INTO wg_knowledge_changes (project, id, seq)
        SELECT c.project, nextval('wg_knowledge_change_seq'), c.seq FROM (SELECT o.project, o.seq FROM old_rows o ORDER BY 1, 2) c;
      END IF;
      GET DIAGNOSTICS logged = ROW_COUNT;
      IF logged = 0 THEN
        RETURN NULL;
      END IF;
      FOR p IN SELECT DISTINCT o.project FROM old_rows o LOOP
        SELECT c.id INTO cut FROM wg_knowledge_changes c WHERE c.project = p.project ORDER BY c.id DESC OFFSET ${CHANGES_KEPT} LIMIT 1;
        IF cut IS NOT NULL THEN
          DELETE FROM wg_knowledge_changes c WHERE c.project = p.project AND c.id <= cut;
          INSERT INTO wg_knowledge_change_floors AS f (project, floor) VALUES (p.project, cut)
          ON CONFLICT (project) DO UPDATE SET floor = greatest(f.floor, EXCLUDED.floor);
        END IF;
      END LOOP;
      RETURN NULL;
    END $$;
    ${catchUpWithVectors()}
  `,
};
