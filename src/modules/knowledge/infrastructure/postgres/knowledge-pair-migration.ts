import type { Migration } from '../../../../kernel/postgres/migrations';

/** Seqs per chunk, as migration 6's term bitmaps. */
export const PAIR_CHUNK = 8192;

/**
 * Knowledge migration 9: neighbouring pairs, for phrase counts. A phrase `"a b"` is `'a' <-> 'b'`: a node matches
 * when its vector holds b at some position right after one of a's. GIN has no positions (every candidate's heap row is
 * rechecked: counting 10,000 matches of a two-word phrase at 1,000,000 nodes took 0.9 s), so per project, pair
 * (`'a b'`, lexemes of neighbouring positions of the stored vector — the same positions `<->` reads, across the
 * thought/tags/artifacts seams too) and chunk of 8,192 seqs, `wg_knowledge_pair_seqs` lists the offsets (seq % 8192,
 * ascending) of the nodes that hold it: a two-word phrase's count is the sum of a few hundred array lengths.
 * Offsets, not bitmaps: on real text most pairs are rare, and a 1 KB bitmap per rare pair and chunk would outweigh
 * the nodes.
 *
 * Kept per COMPLETE chunk, and not by the writes: computing the pairs (every position of every lexeme, joined to the
 * next) costs about four times the postings' unnest, and building a chunk's lists in the insert that passes its end
 * cost add_nodes 15–18 % (0.855 and 0.817 of the same store without it, 82 batches of 100 crossing one chunk's end,
 * load 14–19). `wg_knowledge_pair_chunks.below` is per project the chunk the lists stop at: chunks below it are listed,
 * the others (the newest, and any the seqs passed since the last build) are counted through GIN.
 * `wg_knowledge_pairs_build(project)` lists the chunks the seqs have passed, under the project's row lock (skipped,
 * NULL, when a writer holds it); a phrase count calls it when it finds such chunks (pg-search-phrase-count.ts), so
 * one search per 8,192 new seqs pays a chunk's build (1–4 s under load 11–16) and writes pay nothing. Rows below `below` that
 * change (a delete, an update in place, an insert there — none of the store's paths makes one) have their offsets
 * taken out and put in again by a trigger of its own (the postings trigger is not touched: other migrations replacing
 * that function leave this one alone); an insert into the newest chunk costs it one empty join.
 */
/**
 * The pairs of the rows `src` (aliased n; `cond` on them) as (project, pair, chunk, offsets): set-based, one hash join
 * of all their (seq, lexeme, position) rows — a function called per row cost several times more.
 */
export const pairLists = (src: string, cond: string) => `
  WITH p AS MATERIALIZED (SELECT n.project, n.seq, u.lexeme, x.pos FROM ${src}, unnest(n.search) u, unnest(u.positions) x(pos) WHERE ${cond})
  SELECT a.project, a.lexeme || ' ' || b.lexeme AS pair, a.seq / ${PAIR_CHUNK} AS chunk, array_agg(DISTINCT (a.seq % ${PAIR_CHUNK})::smallint) AS offs
  FROM p a JOIN p b ON b.seq = a.seq AND b.pos = a.pos + 1 GROUP BY 1, 2, 3`;

/** Puts the offsets of `lists` (a pairLists) into wg_knowledge_pair_seqs. */
export const addLists = (lists: string) => `
  INSERT INTO wg_knowledge_pair_seqs AS s (project, pair, chunk, seqs) SELECT * FROM (${lists}) l
  ON CONFLICT (project, pair, chunk) DO UPDATE SET seqs = ARRAY(SELECT DISTINCT e FROM unnest(s.seqs || EXCLUDED.seqs) e ORDER BY e)`;

export const pairMigration: Migration = {
  module: 'knowledge',
  version: 9,
  name: 'knowledge search: neighbouring-pair lists per complete chunk of seqs, built by phrase counts (phrase totals without reading matches)',
  sql: `
    CREATE TABLE wg_knowledge_pair_seqs (
      project text NOT NULL,
      pair text COLLATE "C" NOT NULL,
      chunk bigint NOT NULL,
      seqs smallint[] NOT NULL,
      PRIMARY KEY (project, pair, chunk)
    );
    CREATE TABLE wg_knowledge_pair_chunks (
      project text PRIMARY KEY,
      below bigint NOT NULL
    );
    -- Lists the chunks of project proj that the seqs have passed (below its newest row's chunk) and are not listed yet,
    -- under the project's row lock (the writers' lock: no write can change those rows meanwhile); NULL, doing
    -- nothing, when a writer holds the lock (the caller counts those chunks through GIN this time). Answers below as it is after.
    CREATE FUNCTION wg_knowledge_pairs_build(proj text) RETURNS bigint LANGUAGE plpgsql AS $$
    DECLARE
      r record;
    BEGIN
      PERFORM 1 FROM wg_knowledge_projects WHERE project = proj FOR UPDATE SKIP LOCKED;
      IF NOT FOUND THEN
        RETURN NULL;
      END IF;
      -- (A statement after the lock: its snapshot holds every write committed before.)
      FOR r IN SELECT proj AS project, coalesce((SELECT below FROM wg_knowledge_pair_chunks WHERE project = proj), 0) AS from_chunk,
                 (SELECT max(seq) / ${PAIR_CHUNK} FROM wg_knowledge_nodes WHERE project = proj) AS to_chunk LOOP
        CONTINUE WHEN r.to_chunk IS NULL OR r.to_chunk <= r.from_chunk;
        ${addLists(pairLists('wg_knowledge_nodes n', `n.project = r.project AND n.seq >= r.from_chunk * ${PAIR_CHUNK} AND n.seq < r.to_chunk * ${PAIR_CHUNK}`))};
        INSERT INTO wg_knowledge_pair_chunks (project, below) VALUES (r.project, r.to_chunk)
        ON CONFLICT (project) DO UPDATE SET below = EXCLUDED.below;
      END LOOP;
      RETURN (SELECT below FROM wg_knowledge_pair_chunks WHERE project = proj);
    END $$;
    ALTER FUNCTION wg_knowledge_pairs_build(text) SET work_mem = '16MB';
    CREATE FUNCTION wg_knowledge_pairs_sync() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE wg_knowledge_pair_seqs s SET seqs = ARRAY(SELECT e FROM unnest(s.seqs) e WHERE e <> ALL (g.offs))
        FROM (${pairLists('old_rows n JOIN wg_knowledge_pair_chunks c ON c.project = n.project', `n.seq / ${PAIR_CHUNK} < c.below`)}) g
        WHERE s.project = g.project AND s.pair = g.pair COLLATE "C" AND s.chunk = g.chunk;
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        -- Rows in listed chunks (an update in place): their offsets now. (Rows of newer chunks wait for a build.)
        ${addLists(pairLists('new_rows n JOIN wg_knowledge_pair_chunks c ON c.project = n.project', `n.seq / ${PAIR_CHUNK} < c.below`))};
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER wg_knowledge_pairs_ins AFTER INSERT ON wg_knowledge_nodes
      REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION wg_knowledge_pairs_sync();
    CREATE TRIGGER wg_knowledge_pairs_del AFTER DELETE ON wg_knowledge_nodes
      REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION wg_knowledge_pairs_sync();
    CREATE TRIGGER wg_knowledge_pairs_upd AFTER UPDATE ON wg_knowledge_nodes
      REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION wg_knowledge_pairs_sync();
    INSERT INTO wg_knowledge_pair_chunks (project, below)
      SELECT project, max(seq) / ${PAIR_CHUNK} FROM wg_knowledge_nodes GROUP BY project;
    -- The rows already there, a chunk at a time (one join of a whole large project would spill to disk).
    DO $$
    DECLARE
      r record;
    BEGIN
      SET LOCAL work_mem = '16MB';
      FOR r IN SELECT c.project, g AS chunk FROM wg_knowledge_pair_chunks c,
                 LATERAL (SELECT min(seq) / ${PAIR_CHUNK} AS lo FROM wg_knowledge_nodes WHERE project = c.project) m, generate_series(m.lo, c.below - 1) g LOOP
        ${addLists(pairLists('wg_knowledge_nodes n', `n.project = r.project AND n.seq >= r.chunk * ${PAIR_CHUNK} AND n.seq < (r.chunk + 1) * ${PAIR_CHUNK}`))};
      END LOOP;
    END $$;
    ANALYZE wg_knowledge_pair_seqs, wg_knowledge_pair_chunks;
  `,
};
