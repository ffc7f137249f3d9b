import type { Migration } from '../../../../kernel/postgres/migrations';
import { POSTED_NODES, postingMigration, statisticsOfPosted } from './knowledge-posting-migration';
import { newestSeq, postedNodes } from './pg-search-watermark';

/** Migration 14's test for rows past the watermark in its catch-up function, and what replaces it. */
const RANGE_TEST = 'NOT EXISTS (SELECT 1 FROM wg_knowledge_nodes WHERE project = proj AND seq > upto)';
const NEWEST_TEST = `${newestSeq('proj')} <= upto`;

/** Migration 14's catch-up function, its test of rows past the watermark asked of the newest row (migration 16 builds on it). */
export function catchUpByNewestRow(): string {
  const m = /CREATE FUNCTION wg_knowledge_postings_catch_up\(proj text\)[\s\S]*?END \$\$;/.exec(postingMigration.sql);
  if (!m || !m[0].includes(RANGE_TEST)) throw new Error('knowledge migration 15: migration 14 no longer tests for rows past the watermark as it did');
  return m[0].replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION').replace(RANGE_TEST, NEWEST_TEST);
}

/** Migration 14's statistics function with the posted node count asked the same way. */
function statisticsByNewestRow(): string {
  const sql = statisticsOfPosted(`(SELECT ${postedNodes('$1')} FROM wg_knowledge_projects j WHERE j.project = $1)::text`);
  if (sql === statisticsOfPosted(POSTED_NODES)) throw new Error('knowledge migration 15: migration 14 no longer counts the posted nodes as it did');
  return sql;
}

/**
 * Knowledge migration 15: the search's "rows past the watermark?" asked of the project's newest row, not as a
 * range (pg-search-watermark.ts). Migration 14's catch-up function (every search calls it) tested
 * `EXISTS (… seq > upto)`: PL/pgSQL caches a generic plan after five calls, the planner estimates a third of the
 * table for an unknown range and scans it — 200–270 ms a call at 1,000,000 nodes, for a search that found nothing to
 * post (the statistics function's posted node count the same). Same answers, one index probe.
 */
export const watermarkMigration: Migration = {
  module: 'knowledge',
  version: 15,
  name: 'knowledge search: rows past the watermark found by the newest row, not by a range the planner may scan',
  sql: `
    ${catchUpByNewestRow()}
    ${statisticsByNewestRow()}
  `,
};
