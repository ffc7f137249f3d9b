import type { Migration } from '../../kernel/postgres/migrations';

/**
 * The protocol layer's PostgreSQL schema: the tasks extension's tasks (one row each: the record as JSON, written by
 * the instance running it; the cancellation flag apart, written by any instance) and the requestState signing key
 * shared by every instance of the database.
 */
export const protocolMigrations: Migration[] = [
  {
    module: 'protocol',
    version: 1,
    name: 'tasks-extension tasks and the requestState key',
    sql: `
      CREATE TABLE wg_extension_tasks (
        task_id text PRIMARY KEY,
        owner text NOT NULL,
        terminal boolean NOT NULL DEFAULT false,
        cancel_requested boolean NOT NULL DEFAULT false,
        expires_at timestamptz NOT NULL,
        record json NOT NULL
      );
      CREATE INDEX wg_extension_tasks_expiry ON wg_extension_tasks (expires_at);
      CREATE TABLE wg_protocol_keys (
        name text PRIMARY KEY,
        value text NOT NULL
      );
    `,
  },
];
