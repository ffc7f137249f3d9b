import type { Migration } from '../../../../kernel/postgres/migrations';

/**
 * Knowledge migration 7: impact levels. A posting's level is how many of LEVEL_IMPACTS it reaches (0 below the first:
 * one occurrence in the thought, tags and artifacts only); `wg_knowledge_level_bits` holds, per term and level ≥ 1,
 * the bitmap of the nodes at that level or above (cumulative; chunks of 8,192 seqs as migration 6's term bitmaps, so
 * level 0 is the term bitmap itself), and `wg_knowledge_term_levels` per term and exact level the node count and the
 * highest impact ever written there (never lowered: an upper bound, also after deletes). A search of several terms
 * (pg-search-levels.ts) takes from them the bound of every combination of levels, ANDs the bitmaps of the combinations
 * that can reach the page and scores only those nodes. The levels are the impacts of 2…8 occurrences in the thought
 * (ts_rank of 'w:1A,…,kA'): the classes of the flat text a project's notes are; a node mixing fields lands between two
 * of them, bounded by its level's highest impact. Only repeated terms get level bits, so a write sets few of them.
 * The postings trigger (migrations 5 and 6) now computes each new row's postings once for every table it keeps.
 */
export const LEVEL_IMPACTS = ['0.75990885', '0.82745636', '0.8654518', '0.8897689', '0.90665567', '0.9190623', '0.9285612'] as const;

const levelCase = `CASE ${LEVEL_IMPACTS.map((v, i) => `WHEN impact < ${v}::real THEN ${i}`).join(' ')} ELSE ${LEVEL_IMPACTS.length} END`;

export const levelMigration: Migration = {
  module: 'knowledge',
  version: 7,
  name: 'knowledge search: impact levels (cumulative bitmaps per term and level, counts and highest impact per level)',
  sql: `
    CREATE FUNCTION wg_knowledge_level(impact real) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN ${levelCase};
    CREATE TABLE wg_knowledge_level_bits (
      project text NOT NULL,
      term text COLLATE "C" NOT NULL,
      level smallint NOT NULL,
      chunk bigint NOT NULL,
      bits bit varying NOT NULL,
      PRIMARY KEY (project, term, level, chunk)
    );
    CREATE TABLE wg_knowledge_term_levels (
      project text NOT NULL,
      term text COLLATE "C" NOT NULL,
      level smallint NOT NULL,
      docs bigint NOT NULL,
      max_impact real NOT NULL,
      PRIMARY KEY (project, term, level)
    );
    -- The set bits of a bitmap (0 = the leftmost), lowest first: position() from the last one found, so a sparse
    -- bitmap costs a few scans, not one step per bit.
    CREATE FUNCTION wg_knowledge_bit_positions(b bit varying) RETURNS SETOF int LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
    DECLARE
      p int := 0;
      q int;
    BEGIN
      LOOP
        q := position(B'1' IN substring(b FROM p + 1));
        EXIT WHEN q = 0;
        p := p + q;
        RETURN NEXT p - 1;
      END LOOP;
    END $$;
    CREATE OR REPLACE FUNCTION wg_knowledge_postings_sync() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP IN ('DELETE', 'UPDATE') THEN
        WITH gone AS MATERIALIZED (
          SELECT o.project, p.term, p.impact, o.seq FROM old_rows o, wg_knowledge_postings_of(o.search) p
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
      END IF;
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        WITH p AS MATERIALIZED (
          SELECT n.project, x.term, x.impact, n.seq FROM new_rows n, wg_knowledge_postings_of(n.search) x
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
        ON CONFLICT (project, term, chunk) DO UPDATE SET bits = b.bits | EXCLUDED.bits;
      END IF;
      RETURN NULL;
    END $$;
    INSERT INTO wg_knowledge_level_bits (project, term, level, chunk, bits)
      SELECT p.project, p.term, l, p.seq / 8192, bit_or(wg_knowledge_bit(p.seq))
      FROM wg_knowledge_postings p, generate_series(1, wg_knowledge_level(p.impact)) l
      WHERE p.impact >= ${LEVEL_IMPACTS[0]}::real GROUP BY 1, 2, 3, 4;
    INSERT INTO wg_knowledge_term_levels (project, term, level, docs, max_impact)
      SELECT project, term, wg_knowledge_level(impact), count(*), max(impact) FROM wg_knowledge_postings GROUP BY 1, 2, 3;
    ANALYZE wg_knowledge_level_bits, wg_knowledge_term_levels;
  `,
};
