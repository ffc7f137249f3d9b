import type { Pool, PoolClient, QueryResultRow } from 'pg';
import { toStoreError } from './pg-errors';
import { redactDatabaseUrl } from './database-url';

/** Settings of the PostgreSQL connection pool (flags `--database-pool-size`; TLS and the rest come from the URL). */
export interface PgDatabaseOptions {
  /** Connections in the pool. Default 10. */
  poolSize?: number;
  /** How long to wait for a connection before the call fails with storage_unavailable. Default 5,000 ms. */
  connectTimeoutMs?: number;
  /** Longest a single statement may run (server-side `statement_timeout`). Default 30,000 ms. */
  statementTimeoutMs?: number;
  /** Name shown in pg_stat_activity. Default `workgraph`. */
  applicationName?: string;
}

/**
 * A statement kept prepared under `name` on each connection that runs it: parsed (and, once PostgreSQL settles on a
 * generic plan, planned) once per connection instead of at every call. One name, one text: pg refuses a name reused
 * for another text on the same connection.
 */
export interface NamedStatement {
  name: string;
  text: string;
}

/** Something that runs SQL: the pool, or one transaction's client. */
export interface SqlRunner {
  query<R extends QueryResultRow = QueryResultRow>(sql: string | NamedStatement, params?: readonly unknown[]): Promise<R[]>;
}

/** The config form pg's query() takes for a statement (named ones are prepared per connection). */
export function queryConfig(sql: string | NamedStatement, params: readonly unknown[] = []): { text: string; name?: string; values: unknown[] } {
  return typeof sql === 'string' ? { text: sql, values: [...params] } : { name: sql.name, text: sql.text, values: [...params] };
}

/**
 * One PostgreSQL database behind a `pg` pool, loaded only when a database URL is configured (the file stores need no
 * driver). Every error is converted once, here: unreachable → `storage_unavailable` (retryable), else `storage_error`;
 * the password never appears in a message. The pool reconnects by itself: a failed connection is dropped and the next
 * call opens a new one.
 */
export class PgDatabase implements SqlRunner {
  private readonly pool: Pool;
  readonly redactedUrl: string;
  /** Clients whose connection failed; the pool drops them on release. */
  private readonly lost = new WeakSet<object>();

  private ready?: Promise<void>;

  /**
   * @param prepare run once before the first query (the migrations); when it fails, the next call tries again.
   */
  constructor(private readonly url: string, options: PgDatabaseOptions = {}, private readonly prepare?: (db: PgDatabase) => Promise<void>) {
    const { Pool: PgPool } = require('pg') as typeof import('pg');
    this.redactedUrl = redactDatabaseUrl(url);
    this.pool = new PgPool({
      connectionString: url,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
      statement_timeout: options.statementTimeoutMs ?? 30_000,
      application_name: options.applicationName ?? 'workgraph',
      // Keep idle connections short-lived so a restarted server is reconnected to promptly.
      idleTimeoutMillis: 10_000,
      // Idle connections never keep a finished CLI command alive.
      allowExitOnIdle: true,
    });
    // An idle client losing its connection (server restart) must not crash the process; the pool replaces it.
    this.pool.on('error', () => undefined);
    // Every client keeps an error listener for its whole life. The pool's own listener is off while a client is
    // checked out, and a client handed to a waiting caller is acquired synchronously while the socket's data is
    // parsed: when the same chunk ends the previous query and carries the server's "terminating connection"
    // (a restart), the error is emitted before an awaiting caller can attach a listener — unheard, it ended the
    // process. Marking the client lost here also tells transaction() not to reuse it.
    this.pool.on('connect', (client) => client.on('error', () => this.lost.add(client)));
  }

  /** Runs `prepare` once (the schema migrations); callers need not call it, every query does. */
  ensureReady(): Promise<void> {
    if (!this.prepare) return Promise.resolve();
    this.ready ??= this.prepare(this).catch((e) => {
      this.ready = undefined;
      throw toStoreError(e, this.url, 'cannot prepare the database');
    });
    return this.ready;
  }

  async query<R extends QueryResultRow = QueryResultRow>(sql: string | NamedStatement, params: readonly unknown[] = []): Promise<R[]> {
    await this.ensureReady();
    try {
      return (await this.pool.query<R>(queryConfig(sql, params))).rows;
    } catch (e) {
      throw toStoreError(e, this.url, 'database query failed');
    }
  }

  /**
   * Runs `fn` in one transaction (READ COMMITTED unless `isolation` says otherwise); commits when it resolves, rolls
   * back when it throws (rethrowing the kernel form of the error).
   */
  async transaction<T>(fn: (tx: SqlRunner) => Promise<T>, isolation: 'read committed' | 'repeatable read' | 'serializable' = 'read committed'): Promise<T> {
    await this.ensureReady();
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw toStoreError(e, this.url, 'cannot connect to the database');
    }
    let broken = false;
    const tx: SqlRunner = {
      query: async <R extends QueryResultRow>(sql: string | NamedStatement, params: readonly unknown[] = []) => {
        try {
          return (await client.query<R>(queryConfig(sql, params))).rows;
        } catch (e) {
          const code = (e as { code?: string }).code ?? '';
          if (!/^[0-9A-Z]{5}$/.test(code)) broken = true; // a socket error, not an SQL one: don't reuse this client
          throw toStoreError(e, this.url, 'database query failed');
        }
      },
    };
    try {
      await tx.query(`BEGIN ISOLATION LEVEL ${isolation.toUpperCase()}`);
      const value = await fn(tx);
      await tx.query('COMMIT');
      return value;
    } catch (e) {
      if (!broken && !this.lost.has(client)) await client.query('ROLLBACK').catch(() => (broken = true));
      throw toStoreError(e, this.url, 'database transaction failed');
    } finally {
      client.release(broken || this.lost.has(client));
    }
  }

  /** A dedicated connection (for LISTEN, migrations); the caller releases it. Its connection errors never crash. */
  async connect(): Promise<PoolClient> {
    try {
      return await this.pool.connect();
    } catch (e) {
      throw toStoreError(e, this.url, 'cannot connect to the database');
    }
  }

  private readonly closeHooks: Array<() => Promise<void>> = [];

  /** Runs `fn` when the database is closed, before the pool ends (for holders of dedicated connections). */
  onClose(fn: () => Promise<void>): void {
    this.closeHooks.push(fn);
  }

  async close(): Promise<void> {
    for (const fn of this.closeHooks.splice(0)) await fn().catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }
}
