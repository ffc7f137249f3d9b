import type { Migration } from '../../../../kernel/postgres/migrations';

/**
 * The plain node's fast path of wg_knowledge_vector: no artifacts, tags a compact JSON array of strings without an
 * escape (what JSON.stringify writes for ordinary tags), so the tags' JSON text holds the same words in the same order
 * as migration 3's jsonb_path_query_array text (not so for objects, whose keys jsonb reorders, numbers, which it
 * rewrites, or a JSON null, which jsonpath's lax mode reads as [null]); the artifacts' part of such a node is empty,
 * and concatenating an empty tsvector changes nothing. Any other node takes migration 3's expression unchanged.
 */
const PLAIN = String.raw`coalesce((node->'artifacts')::text, '[]') = '[]' AND coalesce((node->'tags')::text, '[]') ~ '^\[("[^"\\]*"(,"[^"\\]*")*)?\]$'`;

/** Migration 3's vector, word for word: the slow path, and the definition the fast path must equal. */
const FULL_VECTOR = String.raw`setweight(to_tsvector('english', wg_knowledge_words(node->>'thought')), 'A')
  || setweight(to_tsvector('english', wg_knowledge_words(coalesce(jsonb_path_query_array(node::jsonb, '$.tags[*]')::text, ''))), 'B')
  || setweight(to_tsvector('english', wg_knowledge_words(
       coalesce(jsonb_path_query_array(node::jsonb, '$.artifacts[*].name')::text, '') || ' ' ||
       coalesce(jsonb_path_query_array(node::jsonb, '$.artifacts[*].path')::text, ''))), 'C')`;

/**
 * Knowledge migration 8: a cheaper search vector, the same values. wg_knowledge_vector, the generated column's
 * expression, cast the node to jsonb three times (about 20 µs each at ~400 bytes) and ran two regular expressions over
 * every text: a plain node (no artifacts, ordinary tags) now reads its fields from the json as it is, and an ASCII text
 * skips the Unicode decomposition and the combining-mark pass (both change nothing there). The vector is the same
 * tsvector for every node (tests/integration/knowledge/postgres-search-vector.test.ts), so the stored column is not
 * rewritten. Measured by bench/knowledge-add-breakdown-postgres.js (docs/postgres.md "What an add costs", also for
 * fillfactor 50 on the bitmap tables: more of their updates in place, a batch-time gain two runs disagreed on).
 */
export const writeMigration: Migration = {
  module: 'knowledge',
  version: 8,
  name: 'knowledge search: a cheaper vector of plain nodes (the same tsvector)',
  sql: `
    CREATE OR REPLACE FUNCTION wg_knowledge_ascii_words(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN CASE WHEN octet_length(t) = length(t) THEN regexp_replace(lower(t), '[^[:alnum:]]+', ' ', 'g') ELSE wg_knowledge_words(t) END;
    CREATE OR REPLACE FUNCTION wg_knowledge_vector(node json) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
      RETURN CASE WHEN ${PLAIN}
        THEN setweight(to_tsvector('english', wg_knowledge_ascii_words(node->>'thought')), 'A')
          || setweight(to_tsvector('english', wg_knowledge_ascii_words(coalesce((node->'tags')::text, ''))), 'B')
        ELSE ${FULL_VECTOR} END;
  `,
};
