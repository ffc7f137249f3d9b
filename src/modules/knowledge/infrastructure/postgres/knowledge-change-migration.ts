import type { Migration } from '../../../../kernel/postgres/migrations';

/** Changes kept per project in wg_knowledge_changes; older ones go, and the project's floor says up to where. */
export const CHANGES_KEPT = 65_536;

/**
 * Knowledge migration 10: a change log of rows updated or deleted in place, for the search cache (pg-search-cache.ts)
 * of every host. A cache holds lists up to a watermark seq; appends are found by seq (> the watermark), but a delete or
 * an update in place (a summary recalculated, links dropped, a project replaced by an import) changes rows below it.
 * An AFTER DELETE / AFTER UPDATE statement trigger (transition tables, one INSERT per statement) records each such
 * row's seq with a change id; inserts are not logged, so add_nodes pays nothing. Writers of a project hold its row
 * lock while they take change ids from the sequence, so per project the ids follow commit order and "changes of P
 * after id X" misses nothing a reader could see.
 *
 * Retention: the newest CHANGES_KEPT changes per project. A statement that passes it deletes the older ones and
 * records in wg_knowledge_change_floors the highest id deleted: a cache whose last change id is below the floor
 * cannot know what it missed and reloads (so a project import of 1,000,000 rows logs them, trims, and every cache of
 * it reloads, as it must).
 */
export const changeMigration: Migration = {
  module: 'knowledge',
  version: 10,
  name: 'knowledge search cache: a change log of rows updated or deleted in place',
  sql: `
    CREATE TABLE wg_knowledge_changes (
      project text NOT NULL,
      id bigint NOT NULL,
      seq bigint NOT NULL,
      PRIMARY KEY (project, id)
    );
    CREATE SEQUENCE wg_knowledge_change_seq;
    CREATE TABLE wg_knowledge_change_floors (
      project text PRIMARY KEY,
      floor bigint NOT NULL
    );
    CREATE OR REPLACE FUNCTION wg_knowledge_changes_log() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      p record;
      cut bigint;
    BEGIN
      IF TG_OP = 'UPDATE' THEN
        INSERT INTO wg_knowledge_changes (project, id, seq)
        SELECT c.project, nextval('wg_knowledge_change_seq'), c.seq FROM (
          SELECT o.project, o.seq FROM old_rows o UNION SELECT n.project, n.seq FROM new_rows n ORDER BY 1, 2) c;
      ELSE
        INSERT INTO wg_knowledge_changes (project, id, seq)
        SELECT c.project, nextval('wg_knowledge_change_seq'), c.seq FROM (SELECT o.project, o.seq FROM old_rows o ORDER BY 1, 2) c;
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
    CREATE TRIGGER wg_knowledge_changes_del AFTER DELETE ON wg_knowledge_nodes
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION wg_knowledge_changes_log();
    CREATE TRIGGER wg_knowledge_changes_upd AFTER UPDATE ON wg_knowledge_nodes
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION wg_knowledge_changes_log();
  `,
};
