import type { Migration } from '../../../../kernel/postgres/migrations';
import { statisticsDeletedMigration } from './knowledge-statistics-migration';

/** Rows one call of wg_knowledge_postings_catch_up posts at most: one statement stays well inside the pool's timeout. */
export const CATCH_UP_ROWS = 20_000;
/** How long a catch-up waits for the project's row lock before the search goes on without it (lock_timeout). */
export const CATCH_UP_LOCK_WAIT = '5s';

/**
 * The postings, term counts, term levels, level bitmaps and term bitmaps of the rows `src` (aliased n) matching
 * `cond`, added in one set-based statement: migration 7's insert branch, word for word, over any set of rows.
 */
export const postRows = (src: string, cond: string) => `
  WITH p AS MATERIALIZED (
    SELECT n.project, x.term, x.impact, n.seq FROM ${src}, wg_knowledge_postings_of(n.search) x WHERE ${cond}
  ), ins AS (
    INSERT INTO wg_knowledge_postings (project, term, impact, seq) SELECT project, term, impact, seq FROM p
  ), counts AS (
    INSERT INTO wg_knowledge_terms AS t (project, term, docs)
    SELECT project, term, count(*) FROM p GROUP BY project, term
    ON CONFLICT (project, term) DO UPDATE SET docs = t.docs + EXCLUDED.docs
  ), levels AS (
    INSERT INTO wg_knowledge_term_levels AS t (project, term, level, docs, max_impact)
    SELECT project, term, wg_knowledge_level(impact), count(*), max(impact) FROM p GROUP BY 1, 2, 3
    ON CONFLICT (project, term, level) DO UPDATE SET docs = t.docs + EXCLUDED.docs, max_impact = greatest(t.max_impact, EXCLUDED.max_impact)
  ), level_bits AS (
    INSERT INTO wg_knowledge_level_bits AS b (project, term, level, chunk, bits)
    SELECT p.project, p.term, l, p.seq / 8192, bit_or(wg_knowledge_bit(p.seq))
    FROM p, generate_series(1, wg_knowledge_level(p.impact)) l GROUP BY 1, 2, 3, 4
    ON CONFLICT (project, term, level, chunk) DO UPDATE SET bits = b.bits | EXCLUDED.bits
  )
  INSERT INTO wg_knowledge_term_bits AS b (project, term, chunk, bits)
  SELECT project, term, seq / 8192, bit_or(wg_knowledge_bit(seq)) FROM p GROUP BY 1, 2, 3
  ON CONFLICT (project, term, chunk) DO UPDATE SET bits = b.bits | EXCLUDED.bits`;

/** The search watermark: every live row at or below it is posted (0 without a project row). */
const POSTED = '(SELECT posted_up_to FROM wg_knowledge_projects WHERE project = $1)::text';
/** The live rows at or below it (the idf's N): the project's count less its rows not posted yet. */
export const POSTED_NODES = `(SELECT j.nodes - (SELECT count(*) FROM wg_knowledge_nodes x WHERE x.project = $1 AND x.seq > j.posted_up_to)
         FROM wg_knowledge_projects j WHERE j.project = $1)::text`;

/** Migration 13's statistics function with the posted watermark and its node count (the rest unchanged, same type). */
export function statisticsOfPosted(postedNodes = POSTED_NODES): string {
  const w = '(SELECT max(seq) FROM wg_knowledge_nodes WHERE project = $1)::text AS w';
  const n = '(SELECT nodes FROM wg_knowledge_projects WHERE project = $1)::text AS n';
  const sql = statisticsDeletedMigration.sql.replace(/^\s*DROP FUNCTION [^;]*;/, '');
  if (!sql.includes(w) || !sql.includes(n) || !sql.includes('CREATE FUNCTION')) {
    throw new Error('knowledge migration 14: migration 13 no longer reads the watermark as it did');
  }
  return sql.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION').replace(w, `${POSTED} AS w`).replace(n, `${postedNodes} AS n`);
}

/**
 * Knowledge migration 14: postings built by the search, not by every write (issue 23's add bar). The insert branch
 * of the postings trigger (migrations 5–7: ~1,300 posting rows per batch of 100 and their btree, term counts and
 * levels, and the 1 KB level and term bitmap rows rewritten per chunk) was ~45 % of an add_nodes batch; appended rows
 * now wait, and `wg_knowledge_projects.posted_up_to` says per project up to which seq every live row is posted.
 * `wg_knowledge_postings_catch_up(project)` posts the rows past it in one set-based statement (postRows, the same
 * computation) under the project's row lock — the writers' lock, so a catch-up and a delete, update, restore or import
 * serialize; it waits for a writer's short transaction rather than skipping (up to CATCH_UP_LOCK_WAIT: an import holds
 * the lock for minutes; then the search goes on as of posted_up_to) — at most CATCH_UP_ROWS per call, and
 * answers whether rows are left (the caller calls again: each call its own transaction). Every search calls it first
 * (pg-search-catch-up.ts) and takes posted_up_to as its watermark (the statistics function here, the one-word
 * statement, the cache's sync, the fast path's check), so rows a writer commits after the catch-up are outside the
 * search, never half in it. The delete and update branches touch only posted rows (an unposted row has no postings
 * and was never counted). Seqs come from one sequence, taken by writers holding the project's lock, so a row inserted
 * is always past posted_up_to: an insert needs no trigger at all. Existing rows are all posted (by migrations 5–7 or
 * the trigger): posted_up_to starts at each project's highest seq.
 */
export const postingMigration: Migration = {
  module: 'knowledge',
  version: 14,
  name: 'knowledge search: postings of appended rows built by the search (catch-up), not by every add',
  sql: `
    ALTER TABLE wg_knowledge_projects ADD COLUMN posted_up_to bigint NOT NULL DEFAULT 0;
    -- Rows without a project row (hand-made data) get one, so their postings are known to be there.
    INSERT INTO wg_knowledge_projects (project) SELECT DISTINCT project FROM wg_knowledge_nodes ON CONFLICT (project) DO NOTHING;
    UPDATE wg_knowledge_projects j SET posted_up_to = m.seq FROM (SELECT project, max(seq) AS seq FROM wg_knowledge_nodes GROUP BY project) m
      WHERE j.project = m.project;
    DROP TRIGGER wg_knowledge_postings_ins ON wg_knowledge_nodes;
    CREATE OR REPLACE FUNCTION wg_knowledge_postings_sync() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- Only rows at or below their project's posted_up_to have postings (the writer holds the project's row lock,
      -- so no catch-up moves it meanwhile).
      WITH gone AS MATERIALIZED (
        SELECT o.project, p.term, p.impact, o.seq FROM old_rows o JOIN wg_knowledge_projects j ON j.project = o.project AND o.seq <= j.posted_up_to,
          wg_knowledge_postings_of(o.search) p
      ), del AS (
        DELETE FROM wg_knowledge_postings x USING gone g
        WHERE x.project = g.project AND x.term = g.term AND x.impact = g.impact AND x.seq = g.seq
        RETURNING x.project, x.term
      ), counts AS (
        UPDATE wg_knowledge_terms t SET docs = t.docs - d.n
        FROM (SELECT project, term, count(*) AS n FROM del GROUP BY project, term) d
        WHERE t.project = d.project AND t.term = d.term
      ), levels AS (
        UPDATE wg_knowledge_term_levels t SET docs = t.docs - d.n
        FROM (SELECT project, term, wg_knowledge_level(impact) AS level, count(*) AS n FROM gone GROUP BY 1, 2, 3) d
        WHERE t.project = d.project AND t.term = d.term AND t.level = d.level
      ), level_bits AS (
        UPDATE wg_knowledge_level_bits b SET bits = b.bits & ~d.bits
        FROM (SELECT g.project, g.term, l AS level, g.seq / 8192 AS chunk, bit_or(wg_knowledge_bit(g.seq)) AS bits
              FROM gone g, generate_series(1, wg_knowledge_level(g.impact)) l GROUP BY 1, 2, 3, 4) d
        WHERE b.project = d.project AND b.term = d.term AND b.level = d.level AND b.chunk = d.chunk
      )
      UPDATE wg_knowledge_term_bits b SET bits = b.bits & ~g.bits
      FROM (SELECT project, term, seq / 8192 AS chunk, bit_or(wg_knowledge_bit(seq)) AS bits FROM gone GROUP BY 1, 2, 3) g
      WHERE b.project = g.project AND b.term = g.term AND b.chunk = g.chunk;
      IF TG_OP = 'UPDATE' THEN
        -- An update in place keeps the row's seq: posted before, posted again now; else the catch-up posts it.
        ${postRows('new_rows n JOIN wg_knowledge_projects j ON j.project = n.project', 'n.seq <= j.posted_up_to')};
      END IF;
      RETURN NULL;
    END $$;
    CREATE FUNCTION wg_knowledge_postings_catch_up(proj text) RETURNS boolean LANGUAGE plpgsql AS $$
    DECLARE
      upto bigint;
      top bigint;
      found_rows int;
      waited text;
    BEGIN
      -- Nothing to post (a search's usual case): no lock taken, nothing written.
      SELECT posted_up_to INTO upto FROM wg_knowledge_projects WHERE project = proj;
      IF NOT FOUND OR NOT EXISTS (SELECT 1 FROM wg_knowledge_nodes WHERE project = proj AND seq > upto) THEN
        RETURN false;
      END IF;
      -- The writers' lock: waits for a writer's transaction, and no write of the project runs until this one ends.
      -- A write holds it for milliseconds; an import of a large project for minutes: past CATCH_UP_LOCK_WAIT the
      -- search goes on as of posted_up_to (consistent, without the rows past it) and the next search posts them.
      waited := current_setting('lock_timeout');
      PERFORM set_config('lock_timeout', '${CATCH_UP_LOCK_WAIT}', true);
      BEGIN
        SELECT posted_up_to INTO upto FROM wg_knowledge_projects WHERE project = proj FOR UPDATE;
      EXCEPTION WHEN lock_not_available THEN
        PERFORM set_config('lock_timeout', waited, true);
        RETURN false;
      END;
      PERFORM set_config('lock_timeout', waited, true);
      -- Called alone (its own transaction, as every search calls it), it commits without waiting for the WAL flush:
      -- what it writes is derived, and a crash that loses it loses posted_up_to's move with it (all or nothing), so
      -- the next search posts the same rows again; a later writer's synchronous commit flushes it anyway. Inside a
      -- transaction block (a writer's) the block's own setting stands.
      IF transaction_timestamp() = statement_timestamp() THEN
        PERFORM set_config('synchronous_commit', 'off', true);
      END IF;
      -- (Not a SET clause on the function: with one, a SET LOCAL inside would end with the call, before the commit.)
      PERFORM set_config('work_mem', '16MB', true);
      -- (Statements after the lock: their snapshot holds every write committed before it.)
      SELECT max(s.seq), count(*) INTO top, found_rows FROM (
        SELECT seq FROM wg_knowledge_nodes WHERE project = proj AND seq > upto ORDER BY seq LIMIT ${CATCH_UP_ROWS}) s;
      IF found_rows = 0 THEN
        RETURN false;
      END IF;
      ${postRows('wg_knowledge_nodes n', 'n.project = proj AND n.seq > upto AND n.seq <= top')};
      UPDATE wg_knowledge_projects SET posted_up_to = top WHERE project = proj;
      RETURN found_rows = ${CATCH_UP_ROWS};
    END $$;
    ${statisticsOfPosted()}
  `,
};
