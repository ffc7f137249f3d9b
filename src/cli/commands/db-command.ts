import { Command } from 'commander';
import { withCommonOptions } from './common-options';
import { resolveConfig, type CommonFlags } from '../resolve-config';

/**
 * `workgraph db migrate` and `workgraph db status`: the PostgreSQL schema of `--database-url`. Servers migrate by
 * themselves on first use; these commands let an operator do it ahead of time and see where a database stands.
 */
export function dbCommand(): Command {
  const db = new Command('db').description('PostgreSQL database commands (--database-url or WORKGRAPH_DATABASE_URL)');
  db.addCommand(
    withCommonOptions(new Command('migrate').description('apply pending schema migrations (safe to run while servers are up)')).action(async (flags: CommonFlags) => {
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
    withCommonOptions(new Command('status').description('show the schema version of each module: applied, known to this server, pending'))
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
    withCommonOptions(new Command('import').description('copy the file stores of a data dir into the database, keeping every timestamp (idempotent)'))
      .option('--replace', 'overwrite projects that differ in the database (default: keep them and report)')
      .action(async (flags: CommonFlags & { replace?: boolean }) => copyStores(flags, 'import')),
  );
  db.addCommand(
    withCommonOptions(new Command('export').description('write the database\'s stores back as files into a data dir'))
      .option('--replace', 'overwrite projects that differ in the data dir (default: keep them and report)')
      .action(async (flags: CommonFlags & { replace?: boolean }) => copyStores(flags, 'export')),
  );
  return db;
}

/**
 * `db import` / `db export`: every store of one side copied to the other through the stores' own ports (the file
 * store of `--data-dir` and the database store), project by project, reporting what was copied, unchanged or kept.
 */
async function copyStores(flags: CommonFlags & { replace?: boolean }, direction: 'import' | 'export'): Promise<void> {
  const config = resolveConfig(flags);
  if (!config.database) throw new Error('no database: pass --database-url postgres://… or set WORKGRAPH_DATABASE_URL');
  const { createContainer } = await import('../../server/container');
  const { silentLogger } = await import('../../kernel/logger');
  const { TasksTokens } = await import('../../modules/tasks');
  const { Tokens } = await import('../../kernel/tokens');
  const dbContainer = createContainer(config, silentLogger);
  const filesContainer = createContainer({ ...config, database: undefined }, silentLogger);
  type Store = import('../../modules/tasks').TaskGraphStore;
  const [from, to] = [filesContainer, dbContainer].map((c) => c.resolve<Store>(TasksTokens.TaskGraphStore));
  const [source, target] = direction === 'import' ? [from, to] : [to, from];
  const counts = { imported: 0, unchanged: 0, skipped: 0 };
  try {
    for (const project of await source.listProjects()) {
      const graph = (await source.load(project))!;
      const outcome = await target.importProject(graph, await source.readTransitions(project), { replace: flags.replace });
      counts[outcome]++;
      console.log(`tasks ${project}: ${outcome === 'imported' ? 'copied' : outcome === 'unchanged' ? 'unchanged' : 'differs, kept (use --replace)'}`);
    }
    const verb = direction === 'import' ? 'imported into the database' : `exported to ${config.dataDir}`;
    console.log(`${counts.imported} task project(s) ${verb}, ${counts.unchanged} unchanged, ${counts.skipped} kept as they were`);
    await copyKnowledge(direction === 'import' ? [filesContainer, dbContainer] : [dbContainer, filesContainer], verb, flags.replace);
  } finally {
    await dbContainer.resolve<{ close(): Promise<void> }>(Tokens.Database).close();
  }
}

/** The knowledge graphs of every project, copied through the knowledge store port (nodes, deletion records, owner). */
async function copyKnowledge(
  [from, to]: import('tsyringe').DependencyContainer[],
  verb: string,
  replace: boolean | undefined,
): Promise<void> {
  const { KnowledgeTokens, copyKnowledgeProject } = await import('../../modules/knowledge');
  type Store = import('../../modules/knowledge').KnowledgeStore;
  const [source, target] = [from!, to!].map((c) => c.resolve<Store>(KnowledgeTokens.KnowledgeStore));
  const counts = { imported: 0, unchanged: 0, skipped: 0, nodes: 0, deleted: 0 };
  for (const { project } of await source!.listProjects()) {
    const r = await copyKnowledgeProject(source!, target!, project, { replace });
    counts[r.outcome]++;
    if (r.outcome === 'imported') Object.assign(counts, { nodes: counts.nodes + r.nodes, deleted: counts.deleted + r.deleted });
    const what = `${r.nodes} node(s), ${r.deleted} deleted record(s)`;
    console.log(`knowledge ${project}: ${r.outcome === 'imported' ? `copied ${what}` : r.outcome === 'unchanged' ? 'unchanged' : `differs, kept (use --replace) — source has ${what}`}`);
  }
  console.log(
    `${counts.imported} knowledge project(s) ${verb} (${counts.nodes} node(s), ${counts.deleted} deleted record(s)), ${counts.unchanged} unchanged, ${counts.skipped} kept as they were`,
  );
}

async function open(flags: CommonFlags) {
  const config = resolveConfig(flags);
  if (!config.database) throw new Error('no database: pass --database-url postgres://… or set WORKGRAPH_DATABASE_URL');
  const { PgDatabase } = await import('../../kernel/postgres/pg-database');
  const { allMigrations } = await import('../../server/database-migrations');
  return { database: new PgDatabase(config.database.url, { poolSize: 2 }), migrations: allMigrations() };
}
