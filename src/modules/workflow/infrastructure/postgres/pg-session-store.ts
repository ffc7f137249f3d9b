import { randomBytes } from 'node:crypto';
import { AlreadyExistsError, LimitExceededError, NotFoundError } from '../../../../kernel/errors';
import type { PgDatabase, SqlRunner } from '../../../../kernel/postgres/pg-database';
import { foldSessionEvents, isRunningVerification, sameSessionEvents, summarizeSession, type RunningVerification, type SessionEvent, type SessionStartedEvent, type SessionState, type SessionSummary } from '../../domain/sessions';
import type { SessionChange, SessionHistory, SessionListFilter, SessionStore } from '../../application/ports/session-store';

const SESSION_ID = /^[0-9a-f]{16}$/;
import { CHANGE_CHANNEL } from '../../../../kernel/postgres/pg-change-bridge';
import { importedState } from '../sessions/imported-session';

/**
 * Workflow sessions in PostgreSQL: one row per session holding its folded state (the snapshot: a call reads one row,
 * O(1) in the session's length), its summary (listing and resume read only these) and the pinned workflow text; one
 * row per event. An update holds the session's row lock (`SELECT … FOR UPDATE`) across `decide`, so two servers
 * continuing one token on any hosts get one winner, as with the file store's lock. Each change notifies
 * `workgraph_changes` with `{kind: "session", id}`; this process hears it back through the PgChangeBridge.
 */
export class PgSessionStore implements SessionStore {
  /** `logMaxBytes`: the largest log a session may hold (--session-log-mb, default 64 MiB), as the file store's. */
  constructor(
    private readonly db: PgDatabase,
    private readonly logMaxBytes = 64 * 1024 * 1024,
  ) {}

  async create(first: SessionStartedEvent, workflowText: string): Promise<SessionState> {
    const state = foldSessionEvents(undefined, [first]) as SessionState;
    await this.db.transaction(async (tx) => {
      const inserted = await tx.query(
        `INSERT INTO wg_sessions (session_id, state, summary, status, workflow_id, workspace_path, updated_at, workflow_text, log_bytes)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (session_id) DO NOTHING RETURNING session_id`,
        [first.sessionId, ...this.row(state), workflowText, logBytes([first])],
      );
      if (!inserted.length) throw new AlreadyExistsError('session', first.sessionId);
      await this.insertEvents(tx, first.sessionId, 0, [first]);
      await this.notify(tx, first.sessionId);
    });
    return state;
  }

  async importSession(events: readonly SessionEvent[], workflowText: string, opts: { replace?: boolean } = {}): Promise<'imported' | 'unchanged' | 'skipped'> {
    const state = importedState(events);
    const id = state.sessionId;
    return this.db.transaction(async (tx) => {
      // Serializes imports of one id (a row lock cannot, while the row does not exist yet).
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`wg_sessions:${id}`]);
      const rows = await tx.query<{ workflow_text: string }>('SELECT workflow_text FROM wg_sessions WHERE session_id = $1 FOR UPDATE', [id]);
      if (rows.length) {
        if (rows[0].workflow_text === workflowText && sameSessionEvents((await this.readHistory(tx, id)).events, events)) return 'unchanged';
        if (!opts.replace) return 'skipped';
        await tx.query('DELETE FROM wg_sessions WHERE session_id = $1', [id]);
      }
      await tx.query(
        `INSERT INTO wg_sessions (session_id, state, summary, status, workflow_id, workspace_path, updated_at, workflow_text, log_bytes)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [id, ...this.row(state), workflowText, logBytes(events)],
      );
      for (let i = 0; i < events.length; i += 1000) await this.insertEvents(tx, id, i, events.slice(i, i + 1000));
      await this.notify(tx, id);
      return 'imported';
    });
  }

  async load(sessionId: string): Promise<SessionState> {
    if (!SESSION_ID.test(sessionId)) throw this.notFound(sessionId);
    const rows = await this.db.query<{ state: SessionState }>('SELECT state FROM wg_sessions WHERE session_id = $1', [sessionId]);
    if (!rows.length) throw this.notFound(sessionId);
    return rows[0].state;
  }

  async update<T>(sessionId: string, decide: (state: SessionState, history: () => Promise<SessionHistory>) => Promise<SessionChange<T>>): Promise<T> {
    if (!SESSION_ID.test(sessionId)) throw this.notFound(sessionId);
    const result = await this.db.transaction(async (tx) => {
      const rows = await tx.query<{ state: SessionState; log_bytes: string }>(
        'SELECT state, log_bytes::text AS log_bytes FROM wg_sessions WHERE session_id = $1 FOR UPDATE',
        [sessionId],
      );
      if (!rows.length) throw this.notFound(sessionId);
      const current = rows[0].state;
      const change = await decide(current, () => this.readHistory(tx, sessionId));
      if (!change.events.length) return change.result;
      // Checked before anything is written: the transaction then ends with nothing of the continue stored.
      const grown = Number(rows[0].log_bytes) + logBytes(change.events);
      if (grown > this.logMaxBytes) {
        throw new LimitExceededError(
          `session '${sessionId}': its log would grow to ${grown} bytes, past the ${this.logMaxBytes} a session's log may hold (--session-log-mb); nothing was written — start a new session to go on`,
          { limit: 'session-log-mb', max: this.logMaxBytes, size: grown, sessionId },
        );
      }
      const [{ seq }] = await tx.query<{ seq: number }>('SELECT coalesce(max(seq), 0)::int AS seq FROM wg_session_events WHERE session_id = $1', [sessionId]);
      await this.insertEvents(tx, sessionId, seq, change.events);
      const next = foldSessionEvents(current, change.events) as SessionState;
      await tx.query(
        'UPDATE wg_sessions SET state = $2, summary = $3, status = $4, workflow_id = $5, workspace_path = $6, updated_at = $7, log_bytes = $8 WHERE session_id = $1',
        [sessionId, ...this.row(next), grown],
      );
      await this.notify(tx, sessionId);
      return change.result;
    });
    return result;
  }

  async history(sessionId: string): Promise<SessionHistory> {
    await this.load(sessionId);
    return this.readHistory(this.db, sessionId);
  }

  async runningVerifications(sessionId: string): Promise<RunningVerification[]> {
    if (!SESSION_ID.test(sessionId)) return [];
    const rows = await this.db.query<{ run: unknown }>('SELECT run FROM wg_session_verifications WHERE session_id = $1 ORDER BY run_id', [sessionId]);
    return rows.map((r) => r.run).filter(isRunningVerification);
  }

  async setRunningVerification(sessionId: string, run: RunningVerification): Promise<void> {
    if (!SESSION_ID.test(sessionId)) throw this.notFound(sessionId);
    const rows = await this.db.query(
      `INSERT INTO wg_session_verifications (session_id, run_id, run) SELECT $1, $2, $3 WHERE EXISTS (SELECT 1 FROM wg_sessions WHERE session_id = $1)
       ON CONFLICT (session_id, run_id) DO UPDATE SET run = EXCLUDED.run RETURNING session_id`,
      [sessionId, run.runId, JSON.stringify(run)],
    );
    if (!rows.length) throw this.notFound(sessionId);
  }

  async clearRunningVerification(sessionId: string, runId: string): Promise<void> {
    await this.db.query('DELETE FROM wg_session_verifications WHERE session_id = $1 AND run_id = $2', [sessionId, runId]);
  }

  async pinnedWorkflow(sessionId: string): Promise<string> {
    if (!SESSION_ID.test(sessionId)) throw this.notFound(sessionId);
    const rows = await this.db.query<{ workflow_text: string }>('SELECT workflow_text FROM wg_sessions WHERE session_id = $1', [sessionId]);
    if (!rows.length) throw this.notFound(sessionId);
    return rows[0].workflow_text;
  }

  async list(filter: SessionListFilter = {}): Promise<SessionSummary[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.statuses?.length) {
      params.push([...filter.statuses]);
      where.push(`status = ANY($${params.length})`);
    }
    if (filter.workflowId) {
      params.push(filter.workflowId);
      where.push(`workflow_id = $${params.length}`);
    }
    if (filter.workspacePath) {
      params.push(filter.workspacePath.replace(/[\\/]+$/, ''));
      where.push(`workspace_path = $${params.length}`);
    }
    const rows = await this.db.query<{ summary: SessionSummary }>(
      `SELECT summary FROM wg_sessions ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY updated_at DESC, session_id ASC`,
      params,
    );
    return rows.map((r) => r.summary);
  }

  async delete(sessionId: string): Promise<boolean> {
    if (!SESSION_ID.test(sessionId)) return false;
    const deleted = await this.db.transaction(async (tx) => {
      const rows = await tx.query('DELETE FROM wg_sessions WHERE session_id = $1 RETURNING session_id', [sessionId]);
      if (rows.length) await this.notify(tx, sessionId);
      return rows.length > 0;
    });
    return deleted;
  }

  /** Appends events numbered from `after + 1`, in one statement. */
  private async insertEvents(tx: SqlRunner, sessionId: string, after: number, events: readonly SessionEvent[]): Promise<void> {
    const values: unknown[] = [sessionId];
    const tuples = events.map((e, i) => {
      values.push(after + i + 1, JSON.stringify(e));
      return `($1, $${values.length - 1}, $${values.length})`;
    });
    await tx.query(`INSERT INTO wg_session_events (session_id, seq, event) VALUES ${tuples.join(', ')}`, values);
  }

  private async readHistory(runner: SqlRunner, sessionId: string): Promise<SessionHistory> {
    const rows = await runner.query<{ event: SessionEvent }>('SELECT event FROM wg_session_events WHERE session_id = $1 ORDER BY seq', [sessionId]);
    // A database never holds a torn line: nothing is ever damaged here.
    return { events: rows.map((r) => r.event), damaged: [] };
  }

  /** The columns after session_id: state, summary, status, workflow_id, workspace_path, updated_at. */
  private row(state: SessionState): unknown[] {
    const summary = summarizeSession(state);
    return [JSON.stringify(state), JSON.stringify(summary), summary.status, summary.workflowId, summary.workspacePath ?? null, summary.updatedAt];
  }

  private notFound(sessionId: string): NotFoundError {
    return new NotFoundError('session', sessionId);
  }

  private async notify(tx: SqlRunner, sessionId: string): Promise<void> {
    await tx.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, JSON.stringify({ kind: 'session', id: sessionId, at: new Date().toISOString() })]);
  }
}

/**
 * The session-token signing key kept in the database (`wg_settings`), so a token made through one server is valid on
 * every server of the database: the first server to need it inserts a random 32-byte key; the others read that one.
 */
export function databaseTokenKey(db: PgDatabase): () => Promise<Buffer> {
  return async () => {
    await db.query("INSERT INTO wg_settings (name, value) VALUES ('session_token_key', $1) ON CONFLICT (name) DO NOTHING", [randomBytes(32).toString('base64')]);
    const [row] = await db.query<{ value: string }>("SELECT value FROM wg_settings WHERE name = 'session_token_key'");
    return Buffer.from(row.value, 'base64');
  };
}

/** The bytes `events` take in a session log as NDJSON (each event's JSON and its newline), as the file store counts. */
function logBytes(events: readonly SessionEvent[]): number {
  return events.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)) + 1, 0);
}
