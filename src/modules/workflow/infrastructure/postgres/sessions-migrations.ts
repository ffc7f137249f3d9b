import type { Migration } from '../../../../kernel/postgres/migrations';

/**
 * The workflow module's PostgreSQL schema: workflow sessions (their folded state — the snapshot —, their summary for
 * listing and resume, the pinned workflow text) and their append-only event log, plus the settings table holding the
 * session-token signing key shared by every server of the database. JSON is kept as `json` so it reads back as written.
 */
export const workflowMigrations: Migration[] = [
  {
    module: 'workflow',
    version: 1,
    name: 'workflow sessions, their event log and the token key',
    sql: `
      CREATE TABLE wg_sessions (
        session_id text PRIMARY KEY,
        state json NOT NULL,
        summary json NOT NULL,
        status text NOT NULL,
        workflow_id text NOT NULL,
        workspace_path text,
        updated_at text NOT NULL,
        workflow_text text NOT NULL
      );
      CREATE INDEX wg_sessions_updated ON wg_sessions (updated_at DESC, session_id);
      CREATE TABLE wg_session_events (
        session_id text NOT NULL REFERENCES wg_sessions (session_id) ON DELETE CASCADE,
        seq integer NOT NULL,
        event json NOT NULL,
        PRIMARY KEY (session_id, seq)
      );
      CREATE TABLE IF NOT EXISTS wg_settings (
        name text PRIMARY KEY,
        value text NOT NULL
      );
    `,
  },
  {
    module: 'workflow',
    version: 2,
    name: "a session's log size (bytes of its events as NDJSON), so --session-log-mb is checked in O(1)",
    // What the file store's events.ndjson would hold: each event's JSON and its newline. Rows already there are
    // counted once, here.
    sql: `
      ALTER TABLE wg_sessions ADD COLUMN log_bytes bigint NOT NULL DEFAULT 0;
      UPDATE wg_sessions s SET log_bytes = (SELECT coalesce(sum(octet_length(e.event::text) + 1), 0) FROM wg_session_events e WHERE e.session_id = s.session_id);
    `,
  },
  {
    module: 'workflow',
    version: 3,
    name: "a session's running verification commands (owner, pid, marker), so a server that died mid-run is recovered from",
    sql: `
      CREATE TABLE wg_session_verifications (
        session_id text NOT NULL REFERENCES wg_sessions (session_id) ON DELETE CASCADE,
        run_id text NOT NULL,
        run json NOT NULL,
        PRIMARY KEY (session_id, run_id)
      );
    `,
  },
];
