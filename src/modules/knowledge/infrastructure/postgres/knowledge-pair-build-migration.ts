import type { Migration } from '../../../../kernel/postgres/migrations';
import { addLists, PAIR_CHUNK, pairLists } from './knowledge-pair-migration';

/** Chunks one call of wg_knowledge_pairs_build lists at most (1–4 s each under load). */
export const PAIR_BUILD_CHUNKS = 1;

/**
 * Knowledge migration 11: wg_knowledge_pairs_build (migration 9) lists at most {@link PAIR_BUILD_CHUNKS} chunk per
 * call, the oldest due first. It listed every chunk the seqs had passed in one statement: on a project imported
 * whole (the 1,000,000-node bench database: 122 chunks, 4 min 43 s at load 7) the first phrase count's call ran past
 * the pool's 30 s statement timeout — the search failed, and writers waited on the project's row lock all along.
 * Now a phrase count lists one chunk (its caller counts the chunks still due through GIN, exact, as while a writer
 * holds the lock) and the next phrase counts list the next ones. The whole function, replaced.
 */
export const pairBuildMigration: Migration = {
  module: 'knowledge',
  version: 11,
  name: 'knowledge search: wg_knowledge_pairs_build lists one chunk per call (a project imported whole timed out)',
  sql: `
    CREATE OR REPLACE FUNCTION wg_knowledge_pairs_build(proj text) RETURNS bigint LANGUAGE plpgsql AS $$
    DECLARE
      r record;
    BEGIN
      PERFORM 1 FROM wg_knowledge_projects WHERE project = proj FOR UPDATE SKIP LOCKED;
      IF NOT FOUND THEN
        RETURN NULL;
      END IF;
      -- (A statement after the lock: its snapshot holds every write committed before.)
      FOR r IN SELECT x.project, x.from_chunk, least(x.newest, x.from_chunk + ${PAIR_BUILD_CHUNKS}) AS to_chunk FROM (
                 SELECT proj AS project, coalesce((SELECT below FROM wg_knowledge_pair_chunks WHERE project = proj), 0) AS from_chunk,
                   (SELECT max(seq) / ${PAIR_CHUNK} FROM wg_knowledge_nodes WHERE project = proj) AS newest) x LOOP
        CONTINUE WHEN r.to_chunk IS NULL OR r.to_chunk <= r.from_chunk;
        ${addLists(pairLists('wg_knowledge_nodes n', `n.project = r.project AND n.seq >= r.from_chunk * ${PAIR_CHUNK} AND n.seq < r.to_chunk * ${PAIR_CHUNK}`))};
        INSERT INTO wg_knowledge_pair_chunks (project, below) VALUES (r.project, r.to_chunk)
        ON CONFLICT (project) DO UPDATE SET below = EXCLUDED.below;
      END LOOP;
      RETURN (SELECT below FROM wg_knowledge_pair_chunks WHERE project = proj);
    END $$;
    ALTER FUNCTION wg_knowledge_pairs_build(text) SET work_mem = '16MB';
  `,
};
