import type { Migration } from '../../../../kernel/postgres/migrations';

/**
 * The tasks module's PostgreSQL schema. The graph is kept as `json` (not `jsonb`) so it reads back byte for byte in
 * the order it was written, like the file store; transition times are the exact strings the file log holds.
 */
export const tasksMigrations: Migration[] = [
  {
    module: 'tasks',
    version: 1,
    name: 'task graphs and transition log',
    sql: `
      CREATE TABLE wg_task_graphs (
        project_id text PRIMARY KEY,
        graph json NOT NULL,
        revision integer NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE wg_task_transitions (
        seq bigserial PRIMARY KEY,
        project_id text NOT NULL,
        node text NOT NULL,
        from_status text NOT NULL,
        to_status text NOT NULL,
        time text NOT NULL,
        attempt integer NOT NULL
      );
      CREATE INDEX wg_task_transitions_project ON wg_task_transitions (project_id, seq);
    `,
  },
  {
    module: 'tasks',
    version: 2,
    name: 'attempt records in the transition log',
    // A failed attempt's transition carries its record, as in the file log: the graph keeps only the latest 20.
    sql: `ALTER TABLE wg_task_transitions ADD COLUMN record json;`,
  },
  {
    module: 'tasks',
    version: 3,
    name: 'history of plan changes',
    // Written in the same transaction as the graph row: a change and its history entry commit together.
    sql: `
      CREATE TABLE wg_task_history (
        seq bigserial PRIMARY KEY,
        project_id text NOT NULL,
        revision integer NOT NULL,
        nodes text[] NOT NULL,
        entry json NOT NULL
      );
      CREATE INDEX wg_task_history_project ON wg_task_history (project_id, seq);
    `,
  },
];
