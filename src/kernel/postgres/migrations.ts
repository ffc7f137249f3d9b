import { StorageError } from '../errors';
import { queryConfig, type PgDatabase, type SqlRunner } from './pg-database';

/**
 * Versioned schema migrations. Each module contributes its own list (`infrastructure/postgres/<m>-migrations.ts`,
 * exported through its index.ts); versions count up from 1 per module and a released migration is never edited. They
 * run at start under a PostgreSQL advisory lock, so several servers starting at once migrate once; a database that
 * has a migration this server does not know (written by a newer workgraph) is refused.
 */
export interface Migration {
  module: string;
  version: number;
  name: string;
  sql: string;
}

export interface MigrationState {
  module: string;
  /** Highest version applied in the database (0 when none). */
  applied: number;
  /** Highest version this server knows. */
  known: number;
  pending: Array<{ version: number; name: string }>;
}

/** Any constant: the advisory lock key that serializes migrations across every server of a database. */
const MIGRATION_LOCK_KEY = 0x776b6772; // "wkgr"

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS workgraph_schema_migrations (
  module text NOT NULL,
  version integer NOT NULL,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (module, version)
)`;

export async function migrationStatus(db: SqlRunner, migrations: readonly Migration[]): Promise<MigrationState[]> {
  await db.query(CREATE_TABLE);
  const rows = await db.query<{ module: string; version: number }>('SELECT module, max(version)::int AS version FROM workgraph_schema_migrations GROUP BY module');
  const applied = new Map(rows.map((r) => [r.module, r.version]));
  const modules = new Set([...migrations.map((m) => m.module), ...applied.keys()]);
  return [...modules].sort().map((module) => {
    const mine = migrations.filter((m) => m.module === module).sort((a, b) => a.version - b.version);
    const at = applied.get(module) ?? 0;
    return {
      module,
      applied: at,
      known: mine.length ? mine[mine.length - 1].version : 0,
      pending: mine.filter((m) => m.version > at).map((m) => ({ version: m.version, name: m.name })),
    };
  });
}

/** Refuses a database written by a newer server: one line naming the module and both versions. */
export function assertNotNewer(states: readonly MigrationState[], redactedUrl: string): void {
  const newer = states.filter((s) => s.applied > s.known);
  if (newer.length) {
    const what = newer.map((s) => `${s.module} schema ${s.applied} (this server knows up to ${s.known})`).join(', ');
    throw new StorageError(`database ${redactedUrl} was written by a newer workgraph: ${what}; upgrade workgraph, or use another database`, {
      modules: newer.map((s) => s.module),
    });
  }
}

/**
 * Applies every pending migration, each in its own transaction, under the advisory lock. Returns what was applied.
 */
export async function migrate(db: PgDatabase, migrations: readonly Migration[]): Promise<Array<{ module: string; version: number; name: string }>> {
  const applied: Array<{ module: string; version: number; name: string }> = [];
  const client = await db.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      const runner: SqlRunner = { query: async (sql, params) => (await client.query(queryConfig(sql, params))).rows };
      const states = await migrationStatus(runner, migrations);
      assertNotNewer(states, db.redactedUrl);
      for (const state of states) {
        for (const p of state.pending) {
          const m = migrations.find((x) => x.module === state.module && x.version === p.version)!;
          await client.query('BEGIN');
          try {
            // A migration that indexes the rows already there (knowledge 5 and 6 at a million nodes) runs for
            // minutes: the pool's per-statement timeout is for queries, not for this transaction.
            await client.query('SET LOCAL statement_timeout = 0');
            await client.query(m.sql);
            await client.query('INSERT INTO workgraph_schema_migrations (module, version, name) VALUES ($1, $2, $3)', [m.module, m.version, m.name]);
            await client.query('COMMIT');
          } catch (e) {
            await client.query('ROLLBACK').catch(() => undefined);
            throw new StorageError(`migration ${m.module} ${m.version} (${m.name}) failed: ${(e as Error).message}`, { module: m.module, version: m.version });
          }
          applied.push({ module: m.module, version: m.version, name: m.name });
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    }
  } finally {
    client.release();
  }
  return applied;
}
