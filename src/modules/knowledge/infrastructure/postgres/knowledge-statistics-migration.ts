import type { Migration } from '../../../../kernel/postgres/migrations';

/** A prefix is scored over at most this many of its terms (the first in order), as the files' MAX_PREFIX_TERMS. */
export const MAX_PREFIX_TERMS = 1000;

/**
 * Knowledge migration 12: a search's statistics statement (pg-search-statistics.ts) as a function with a generic plan.
 * The statement — the watermark, the node count, the query's terms and their document counts (and impact levels
 * when `with_levels`), the cache's change id and version, each word's one lexeme and each group's tsquery text — is a
 * dozen subqueries: planned for each call it cost about 0.8 ms of planning for 0.6 ms of execution, and prepared as a
 * named statement PostgreSQL still planned it per call (its custom plans looked cheaper than the generic one).
 * Measured on the 1,000,000-node bench database (60 calls each, load 0.7–2): 1.3–1.95 ms unnamed, 1.0–1.1 ms named,
 * 0.44–0.47 ms with the generic plan forced. plpgsql caches the function's plan per connection, and
 * `plan_cache_mode = force_generic_plan` is set on the function only, so no other statement's planning changes.
 * Its output columns carry an `o_` prefix so they never meet the statement's own aliases inside plpgsql.
 */
/**
 * The statistics function's text; `deleted` adds migration 13's column. One template, so migration 12's text stays
 * byte for byte what databases applied.
 */
function statisticsFunction(deleted: boolean): string {
  return `
    CREATE FUNCTION wg_knowledge_search_statistics(proj text, words text[], prefixes text[], lexemes_of text[], with_levels boolean)
      RETURNS TABLE (o_w text, o_n text, o_terms json, o_x text, o_v text, o_lex json, o_tsq text[]${deleted ? ', o_d text' : ''})
      LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
    BEGIN
      RETURN QUERY SELECT (SELECT max(seq) FROM wg_knowledge_nodes WHERE project = $1)::text AS w,
       (SELECT nodes FROM wg_knowledge_projects WHERE project = $1)::text AS n,
       (SELECT json_agg(json_build_object('term', x.term, 'docs', coalesce(t.docs, 0), 'levels', CASE WHEN $5 THEN
           (SELECT json_agg(json_build_object('level', l.level, 'docs', l.docs, 'max', l.max_impact::text) ORDER BY l.level)
             FROM wg_knowledge_term_levels l WHERE l.project = $1 AND l.term = x.term) END) ORDER BY x.term) FROM (
          SELECT DISTINCT u.lexeme AS term FROM unnest($2::text[]) w, unnest(to_tsvector('english', wg_knowledge_words(w))) u
          UNION
          SELECT e.term FROM unnest($3::text[]) w, unnest(to_tsvector('english', wg_knowledge_words(w))) u,
            LATERAL (SELECT t.term FROM wg_knowledge_terms t WHERE t.project = $1 AND t.term >= u.lexeme COLLATE "C"
                     AND t.term < (u.lexeme || chr(1114111)) COLLATE "C" AND t.docs > 0 ORDER BY t.term LIMIT ${MAX_PREFIX_TERMS}) e
        ) x LEFT JOIN wg_knowledge_terms t ON t.project = $1 AND t.term = x.term) AS terms,
       (SELECT max(id) FROM wg_knowledge_changes WHERE project = $1)::text AS x,
       (SELECT version FROM wg_knowledge_projects WHERE project = $1)::text AS v,
       (SELECT json_agg((SELECT CASE WHEN count(*) = 1 AND websearch_to_tsquery('english', k.word) = quote_literal(min(u.lexeme))::tsquery
                          THEN min(u.lexeme) END FROM unnest(to_tsvector('english', wg_knowledge_words(k.word))) u) ORDER BY k.i)
        FROM unnest($4::text[]) WITH ORDINALITY k(word, i)) AS lex,
       ARRAY(SELECT websearch_to_tsquery('english', k.word)::text FROM unnest($4::text[]) WITH ORDINALITY k(word, i) ORDER BY k.i) AS tsq${deleted ? `,
       (SELECT deleted FROM wg_knowledge_projects WHERE project = $1)::text AS d` : ''};
    END $$;
  `;
}

export const statisticsMigration: Migration = {
  module: 'knowledge',
  version: 12,
  name: 'knowledge search: the statistics statement as a function planned once per connection (generic plan)',
  sql: statisticsFunction(false),
};

/**
 * Knowledge migration 13: the statistics function also answers the project's count of deletion records (`o_d`). A
 * search cursor carries it with the last change id (`o_x`): a delete or a recalculation logs a change, a restore takes
 * deletion records out (only a delete, which logs, adds them), so the pair moves on each of them and not on an add.
 * Read in the statement the search already runs: no round trip more. A new column changes the function's type, so it
 * is dropped and created again (same generic plan setting).
 */
export const statisticsDeletedMigration: Migration = {
  module: 'knowledge',
  version: 13,
  name: 'knowledge search: the statistics function answers the deletion record count (cursor state)',
  sql: `
    DROP FUNCTION wg_knowledge_search_statistics(text, text[], text[], text[], boolean);${statisticsFunction(true)}`,
};
