import type { Migration } from '../../../../kernel/postgres/migrations';
import { levelMigration } from './knowledge-level-migration';
import { writeMigration } from './knowledge-write-migration';
import { pairMigration } from './knowledge-pair-migration';
import { changeMigration } from './knowledge-change-migration';
import { pairBuildMigration } from './knowledge-pair-build-migration';
import { statisticsDeletedMigration, statisticsMigration } from './knowledge-statistics-migration';
import { postingMigration } from './knowledge-posting-migration';
import { watermarkMigration } from './knowledge-watermark-migration';
import { vectorMigration } from './knowledge-vector-migration';

/**
 * The knowledge module's PostgreSQL schema. A node is kept as `json` (not `jsonb`) so it reads back byte for byte in
 * the order it was written, like a line of the NDJSON file; the columns beside it are what the queries filter on.
 * `seq` orders a project newest first (a restored node gets a new one: it counts as newest, as in the files).
 * A backup records the rows a delete removed and the project's version when it ran — not a copy of the project — so
 * a delete costs the same at any graph size.
 */
export const knowledgeMigrations: Migration[] = [
  {
    module: 'knowledge',
    version: 1,
    name: 'knowledge nodes, deletion records and backups',
    sql: `
      CREATE TABLE wg_knowledge_projects (
        project text PRIMARY KEY,
        owner_path_key text,
        owner_context text,
        version bigint NOT NULL DEFAULT 0,
        nodes bigint NOT NULL DEFAULT 0,
        deleted bigint NOT NULL DEFAULT 0,
        size_bytes bigint NOT NULL DEFAULT 0,
        deleted_size_bytes bigint NOT NULL DEFAULT 0,
        modified_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE SEQUENCE wg_knowledge_seq;
      CREATE TABLE wg_knowledge_nodes (
        project text NOT NULL,
        id text NOT NULL,
        seq bigint NOT NULL,
        role text NOT NULL,
        tags text[] NOT NULL,
        parents text[] NOT NULL,
        mentions text[] NOT NULL,
        node json NOT NULL,
        PRIMARY KEY (project, id)
      );
      CREATE INDEX wg_knowledge_nodes_newest ON wg_knowledge_nodes (project, seq DESC);
      CREATE INDEX wg_knowledge_nodes_parents ON wg_knowledge_nodes USING gin (parents);
      CREATE INDEX wg_knowledge_nodes_mentions ON wg_knowledge_nodes USING gin (mentions) WHERE role = 'summary';
      CREATE TABLE wg_knowledge_deleted (
        seq bigserial PRIMARY KEY,
        project text NOT NULL,
        node_id text NOT NULL,
        record json NOT NULL
      );
      CREATE INDEX wg_knowledge_deleted_node ON wg_knowledge_deleted (project, node_id);
      CREATE INDEX wg_knowledge_deleted_newest ON wg_knowledge_deleted (project, seq DESC);
      CREATE TABLE wg_knowledge_backups (
        id bigserial PRIMARY KEY,
        project text NOT NULL,
        created_at text NOT NULL,
        version bigint NOT NULL,
        node_count integer NOT NULL,
        size_bytes bigint NOT NULL
      );
      CREATE INDEX wg_knowledge_backups_project ON wg_knowledge_backups (project, id DESC);
      CREATE TABLE wg_knowledge_backup_nodes (
        backup_id bigint NOT NULL REFERENCES wg_knowledge_backups (id) ON DELETE CASCADE,
        node_id text NOT NULL,
        node json NOT NULL,
        PRIMARY KEY (backup_id, node_id)
      );
    `,
  },
  {
    module: 'knowledge',
    version: 2,
    name: 'knowledge backup names and node order (backups copied from a data dir keep their file name)',
    // A backup imported from a data dir keeps its file name, so importing again finds it and restore-backup takes
    // PROJECT/<file name>, as the files do; backups taken by a delete in the database have none. `ord` keeps a
    // backup's nodes in graph order (oldest first, as a backup file holds them), the order a restore puts them back in.
    sql: `
      ALTER TABLE wg_knowledge_backups ADD COLUMN name text;
      CREATE UNIQUE INDEX wg_knowledge_backups_name ON wg_knowledge_backups (project, name) WHERE name IS NOT NULL;
      ALTER TABLE wg_knowledge_backup_nodes ADD COLUMN ord integer;
    `,
  },
  {
    module: 'knowledge',
    version: 3,
    name: 'knowledge search: a tsvector of every node (thought A, tags B, artifact names and paths C) with a GIN index',
    // The words are made as the file index makes them (domain/search/search-text.ts): Unicode compatibility
    // decomposition, combining marks dropped, lower case, anything but letters and digits a separator; then the
    // english configuration drops its stopwords and stems with Porter2 (Snowball English), as the files do. A generated
    // column, so adding it indexes every existing row and every write keeps it (no code path can forget it).
    sql: `
      CREATE FUNCTION wg_knowledge_words(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN regexp_replace(lower(regexp_replace(normalize(coalesce(t, ''), NFKD), '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]', '', 'g')), '[^[:alnum:]]+', ' ', 'g');
      CREATE FUNCTION wg_knowledge_vector(node json) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN setweight(to_tsvector('english', wg_knowledge_words(node->>'thought')), 'A')
          || setweight(to_tsvector('english', wg_knowledge_words(coalesce(jsonb_path_query_array(node::jsonb, '$.tags[*]')::text, ''))), 'B')
          || setweight(to_tsvector('english', wg_knowledge_words(
               coalesce(jsonb_path_query_array(node::jsonb, '$.artifacts[*].name')::text, '') || ' ' ||
               coalesce(jsonb_path_query_array(node::jsonb, '$.artifacts[*].path')::text, ''))), 'C');
      ALTER TABLE wg_knowledge_nodes ADD COLUMN search tsvector GENERATED ALWAYS AS (wg_knowledge_vector(node)) STORED;
      CREATE INDEX wg_knowledge_nodes_search ON wg_knowledge_nodes USING gin (search);
    `,
  },
  {
    module: 'knowledge',
    version: 4,
    name: 'knowledge project owners: the identity that created a bare-name project',
    // A project named by a bare name (no folder) belongs to the identity that created it (docs/http.md "What an
    // identity sees"). Rows made before this have none: the first identity to write claims them, until then every
    // identity reaches them (nothing is hidden or lost by the upgrade).
    sql: `ALTER TABLE wg_knowledge_projects ADD COLUMN owner_identity text;`,
  },
  {
    module: 'knowledge',
    version: 5,
    name: 'knowledge search: impact-ordered postings (one row per node and term) and term document counts',
    // A search of one term walks its postings best first and stops after the page (pg-search.ts), instead of
    // ranking every match; a term's document count gives its idf and a one-word total without counting. A posting's
    // impact is ts_rank of the node's vector for that one term (default weights: thought 1.0, tags 0.4, artifacts
    // 0.2; more occurrences rank higher), fixed when the node is written: a search scores Σ idf × impact over its terms,
    // the same sum whichever way it is evaluated. Triggers keep both tables (no code path can forget them); the
    // rows already there are indexed here.
    sql: `
      CREATE TABLE wg_knowledge_postings (
        project text NOT NULL,
        term text COLLATE "C" NOT NULL,
        impact real NOT NULL,
        seq bigint NOT NULL,
        PRIMARY KEY (project, term, impact, seq)
      );
      CREATE TABLE wg_knowledge_terms (
        project text NOT NULL,
        term text COLLATE "C" NOT NULL,
        docs bigint NOT NULL,
        PRIMARY KEY (project, term)
      );
      CREATE FUNCTION wg_knowledge_postings_of(search tsvector) RETURNS TABLE (term text, impact real)
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $f$ SELECT u.lexeme, ts_rank(search, quote_literal(u.lexeme)::tsquery) FROM unnest(search) u $f$;
      CREATE FUNCTION wg_knowledge_postings_sync() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('DELETE', 'UPDATE') THEN
          WITH gone AS (
            SELECT o.project, p.term, p.impact, o.seq FROM old_rows o, wg_knowledge_postings_of(o.search) p
          ), del AS (
            DELETE FROM wg_knowledge_postings x USING gone g
            WHERE x.project = g.project AND x.term = g.term AND x.impact = g.impact AND x.seq = g.seq
            RETURNING x.project, x.term
          )
          UPDATE wg_knowledge_terms t SET docs = t.docs - d.n
          FROM (SELECT project, term, count(*) AS n FROM del GROUP BY project, term) d
          WHERE t.project = d.project AND t.term = d.term;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          WITH ins AS (
            INSERT INTO wg_knowledge_postings (project, term, impact, seq)
            SELECT n.project, p.term, p.impact, n.seq FROM new_rows n, wg_knowledge_postings_of(n.search) p
            RETURNING project, term
          )
          INSERT INTO wg_knowledge_terms AS t (project, term, docs)
          SELECT project, term, count(*) FROM ins GROUP BY project, term
          ON CONFLICT (project, term) DO UPDATE SET docs = t.docs + EXCLUDED.docs;
        END IF;
        RETURN NULL;
      END $$;
      CREATE TRIGGER wg_knowledge_postings_ins AFTER INSERT ON wg_knowledge_nodes
        REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION wg_knowledge_postings_sync();
      CREATE TRIGGER wg_knowledge_postings_del AFTER DELETE ON wg_knowledge_nodes
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION wg_knowledge_postings_sync();
      CREATE TRIGGER wg_knowledge_postings_upd AFTER UPDATE ON wg_knowledge_nodes
        REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION wg_knowledge_postings_sync();
      INSERT INTO wg_knowledge_postings (project, term, impact, seq)
        SELECT n.project, p.term, p.impact, n.seq FROM wg_knowledge_nodes n, wg_knowledge_postings_of(n.search) p;
      INSERT INTO wg_knowledge_terms (project, term, docs) SELECT project, term, count(*) FROM wg_knowledge_postings GROUP BY project, term;
      ANALYZE wg_knowledge_postings, wg_knowledge_terms;
    `,
  },
  {
    module: 'knowledge',
    version: 6,
    name: 'knowledge search: term bitmaps (a bit per node and term, chunks of 8,192 seqs) for exact totals without reading matches',
    // Counting a query's matches through GIN reads every match's heap row (10,000 of them for the capped count of
    // three common words, hundreds of milliseconds at 1,000,000 nodes). A bitmap per term and chunk of seqs (bit
    // seq % 8192 of chunk seq / 8192; 1 KB, kept inline) answers the count of any query of words, prefixes, OR and
    // exclusions with AND, AND NOT, OR and bit_count over a few hundred rows (pg-search-count.ts). The postings
    // trigger keeps them (bits cleared for the old rows first, set for the new, so an update of a row keeps its seq's
    // bits right); the rows already there are indexed here.
    sql: `
      CREATE TABLE wg_knowledge_term_bits (
        project text NOT NULL,
        term text COLLATE "C" NOT NULL,
        chunk bigint NOT NULL,
        bits bit varying NOT NULL,
        PRIMARY KEY (project, term, chunk)
      );
      CREATE FUNCTION wg_knowledge_bit(seq bigint) RETURNS bit varying LANGUAGE sql IMMUTABLE PARALLEL SAFE
        RETURN set_bit(repeat('0', 8192)::bit varying, (seq % 8192)::int, 1);
      CREATE OR REPLACE FUNCTION wg_knowledge_postings_sync() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('DELETE', 'UPDATE') THEN
          WITH gone AS (
            SELECT o.project, p.term, p.impact, o.seq FROM old_rows o, wg_knowledge_postings_of(o.search) p
          ), del AS (
            DELETE FROM wg_knowledge_postings x USING gone g
            WHERE x.project = g.project AND x.term = g.term AND x.impact = g.impact AND x.seq = g.seq
            RETURNING x.project, x.term
          )
          UPDATE wg_knowledge_terms t SET docs = t.docs - d.n
          FROM (SELECT project, term, count(*) AS n FROM del GROUP BY project, term) d
          WHERE t.project = d.project AND t.term = d.term;
          UPDATE wg_knowledge_term_bits b SET bits = b.bits & ~g.bits
          FROM (SELECT o.project, u.lexeme AS term, o.seq / 8192 AS chunk, bit_or(wg_knowledge_bit(o.seq)) AS bits
                FROM old_rows o, unnest(o.search) u GROUP BY 1, 2, 3) g
          WHERE b.project = g.project AND b.term = g.term COLLATE "C" AND b.chunk = g.chunk;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          WITH ins AS (
            INSERT INTO wg_knowledge_postings (project, term, impact, seq)
            SELECT n.project, p.term, p.impact, n.seq FROM new_rows n, wg_knowledge_postings_of(n.search) p
            RETURNING project, term
          )
          INSERT INTO wg_knowledge_terms AS t (project, term, docs)
          SELECT project, term, count(*) FROM ins GROUP BY project, term
          ON CONFLICT (project, term) DO UPDATE SET docs = t.docs + EXCLUDED.docs;
          INSERT INTO wg_knowledge_term_bits AS b (project, term, chunk, bits)
          SELECT n.project, u.lexeme, n.seq / 8192, bit_or(wg_knowledge_bit(n.seq)) FROM new_rows n, unnest(n.search) u GROUP BY 1, 2, 3
          ON CONFLICT (project, term, chunk) DO UPDATE SET bits = b.bits | EXCLUDED.bits;
        END IF;
        RETURN NULL;
      END $$;
      INSERT INTO wg_knowledge_term_bits (project, term, chunk, bits)
        SELECT n.project, u.lexeme, n.seq / 8192, bit_or(wg_knowledge_bit(n.seq)) FROM wg_knowledge_nodes n, unnest(n.search) u GROUP BY 1, 2, 3;
      ANALYZE wg_knowledge_term_bits;
    `,
  },
  levelMigration,
  writeMigration,
  pairMigration,
  changeMigration,
  pairBuildMigration,
  statisticsMigration,
  statisticsDeletedMigration,
  postingMigration,
  watermarkMigration,
  vectorMigration,
];
