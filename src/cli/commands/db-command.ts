import { Command } from 'commander';
import { withStoreOptions } from './common-options';
import { resolveConfig, type CommonFlags } from '../resolve-config';
import { copyStores } from './db-copy';

/**
 * `workgraph db migrate` and `workgraph db status`: the PostgreSQL schema of `--database-url`. Servers migrate by
 * themselves on first use; these commands let an operator do it ahead of time and see where a database stands.
 */
export function dbCommand(): Command {
  const db = new Command('db').description('PostgreSQL database commands (--database-url or WORKGRAPH_DATABASE_URL)');
  db.addCommand(
    withStoreOptions(new Command('migrate').description('apply pending schema migrations (safe to run while servers are up)')).action(async (flags: CommonFlags) => {
      const { database, migrations } = await open(flags);
      const { migrate } = await import('../../kernel/postgres/migrations');
      try {
        const applied = await migrate(database, migrations);
        if (applied.length === 0) console.log(`database ${database.redactedUrl} is up to date`);
        for (const m of applied) console.log(`applied ${m.module} ${m.version}: ${m.name}`);
      } finally {
        await database.close();
      }
    }),
  );
  db.addCommand(
    withStoreOptions(new Command('status').description('show the schema version of each module: applied, known to this server, pending'))
      .option('--json', 'print JSON')
      .action(async (flags: CommonFlags & { json?: boolean }) => {
        const { database, migrations } = await open(flags);
        const { migrationStatus, assertNotNewer } = await import('../../kernel/postgres/migrations');
        try {
          const states = await migrationStatus(database, migrations);
          if (flags.json) console.log(JSON.stringify({ database: database.redactedUrl, modules: states }, null, 2));
          else {
            console.log(`database ${database.redactedUrl}`);
            for (const s of states) {
              const note = s.applied > s.known ? 'NEWER than this server' : s.pending.length ? `${s.pending.length} pending` : 'up to date';
              console.log(`  ${s.module.padEnd(12)} applied ${s.applied}, known ${s.known}: ${note}`);
            }
          }
          assertNotNewer(states, database.redactedUrl);
          if (states.some((s) => s.pending.length)) process.exitCode = 1;
        } finally {
          await database.close();
        }
      }),
  );
  db.addCommand(
    withStoreOptions(new Command('import').description('copy the file stores of a data dir (tasks, knowledge graphs and their backups, workflow sessions and their token key, graph runs) into the database, keeping every timestamp (idempotent)'))
      .option('--replace', 'overwrite records that differ in the database (default: keep them and report)')
      .action(async (flags: CommonFlags & { replace?: boolean }) => copyStores(flags, 'import')),
  );
  db.addCommand(
    withStoreOptions(new Command('export').description('write the database\'s stores back as files into a data dir'))
      .option('--replace', 'overwrite records that differ in the data dir (default: keep them and report)')
      .action(async (flags: CommonFlags & { replace?: boolean }) => copyStores(flags, 'export')),
  );
  return db;
}

async function open(flags: CommonFlags) {
  const config = resolveConfig(flags);
  if (!config.database) throw new Error('no database: pass --database-url postgres://… or set WORKGRAPH_DATABASE_URL');
  const { PgDatabase } = await import('../../kernel/postgres/pg-database');
  const { allMigrations } = await import('../../server/database-migrations');
  return { database: new PgDatabase(config.database.url, { poolSize: 2 }), migrations: allMigrations() };
}
