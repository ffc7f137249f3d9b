import type { Migration } from '../../../../kernel/postgres/migrations';

/**
 * The graph module's PostgreSQL schema: recorded (finished) graph runs, one row each — the whole record and its
 * summary as JSON (lists read only summaries), the run id in byte order (the "C" collation, as file names sort), the start time both as written (ISO text, kept exactly) and in
 * milliseconds for ordering, newest first, the way the file store orders its `<start-ms>-<run-id>` file names.
 */
export const graphMigrations: Migration[] = [
  {
    module: 'graph',
    version: 1,
    name: 'recorded graph runs',
    sql: `
      CREATE TABLE wg_graph_runs (
        run_id text COLLATE "C" PRIMARY KEY,
        tool text NOT NULL,
        started_ms bigint NOT NULL,
        summary json NOT NULL,
        record json NOT NULL
      );
      CREATE INDEX wg_graph_runs_tool_newest ON wg_graph_runs (tool, started_ms DESC, run_id DESC);
      CREATE INDEX wg_graph_runs_newest ON wg_graph_runs (started_ms DESC, run_id DESC);
    `,
  },
];
