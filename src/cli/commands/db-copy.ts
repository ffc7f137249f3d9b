import { resolveConfig, type CommonFlags } from '../resolve-config';

type Outcome = 'imported' | 'unchanged' | 'skipped';
const SAID: Record<Outcome, string> = { imported: 'copied', unchanged: 'unchanged', skipped: 'differs, kept (use --replace)' };

/**
 * `db import` / `db export`: every store of one side copied to the other through the stores' own ports (the file
 * stores of `--data-dir` and the database stores): task projects, knowledge graphs and their backups, workflow sessions (every event as written, the
 * pinned workflow, and the token key so handed-out tokens stay valid) and recorded graph runs. One line per record,
 * then one count line per kind; running it twice copies nothing.
 */
export async function copyStores(flags: CommonFlags & { replace?: boolean }, direction: 'import' | 'export'): Promise<void> {
  const config = resolveConfig(flags);
  if (!config.database) throw new Error('no database: pass --database-url postgres://… or set WORKGRAPH_DATABASE_URL');
  const { createContainer } = await import('../../server/container');
  const { silentLogger } = await import('../../kernel/logger');
  const { TasksTokens } = await import('../../modules/tasks');
  const { WorkflowTokens, workflowRuntime } = await import('../../modules/workflow');
  const { GraphTokens } = await import('../../modules/graph');
  const { Tokens } = await import('../../kernel/tokens');
  type PgDatabase = import('../../kernel/postgres/pg-database').PgDatabase;
  const dbContainer = createContainer(config, silentLogger);
  const filesContainer = createContainer({ ...config, database: undefined }, silentLogger);
  const sides = [filesContainer, dbContainer].map((c) => ({
    tasks: c.resolve<import('../../modules/tasks').TaskGraphStore>(TasksTokens.TaskGraphStore),
    sessions: c.resolve<import('../../modules/workflow').SessionStore>(WorkflowTokens.SessionStore),
    runs: c.resolve<import('../../modules/graph').GraphRunStore>(GraphTokens.GraphRunStore),
  }));
  const [source, target] = direction === 'import' ? sides : [sides[1], sides[0]];
  const opts = { replace: flags.replace };
  const verb = direction === 'import' ? 'imported into the database' : `exported to ${config.dataDir}`;
  const tally = (what: string) => {
    const counts: Record<Outcome, number> = { imported: 0, unchanged: 0, skipped: 0 };
    return {
      add: (id: string, outcome: Outcome) => {
        counts[outcome]++;
        console.log(`${what} ${id}: ${SAID[outcome]}`);
      },
      report: (plural: string) => console.log(`${counts.imported} ${plural} ${verb}, ${counts.unchanged} unchanged, ${counts.skipped} kept as they were`),
    };
  };
  try {
    const tasks = tally('tasks');
    for (const project of await source.tasks.listProjects()) {
      const graph = (await source.tasks.load(project))!;
      const history = await source.tasks.readHistory(project);
      tasks.add(project, await target.tasks.importProject(graph, await source.tasks.readTransitions(project), { ...opts, history }));
    }
    tasks.report('task project(s)');
    await copyKnowledge(direction === 'import' ? [filesContainer, dbContainer] : [dbContainer, filesContainer], verb, flags.replace);

    const sessions = tally('session');
    for (const { sessionId } of await source.sessions.list()) {
      const history = await source.sessions.history(sessionId);
      // A torn line (a crash mid-append in the files) is not an event: it is left out, and said so.
      if (history.damaged.length) console.log(`session ${sessionId}: ${history.damaged.length} damaged log line(s) left out`);
      sessions.add(sessionId, await target.sessions.importSession(history.events, await source.sessions.pinnedWorkflow(sessionId), opts));
    }
    sessions.report('session(s)');
    const key = await workflowRuntime().copySessionTokenKey(direction, config.dataDir, dbContainer.resolve<PgDatabase>(Tokens.Database), flags.replace);
    const keySaid = { copied: 'copied', unchanged: 'unchanged', kept: 'differs, kept (use --replace; tokens signed with the other key stop verifying)', none: 'none to copy' };
    console.log(`session token key: ${keySaid[key]}`);

    const runs = tally('graph run');
    // Oldest first, so the target's bound per tool keeps the newest runs, as the source did.
    for (const { runId } of (await source.runs.list()).reverse()) {
      const record = await source.runs.get(runId);
      const existing = await target.runs.get(runId).catch(() => undefined);
      let outcome: Outcome = 'imported';
      if (existing && JSON.stringify(existing) === JSON.stringify(record)) outcome = 'unchanged';
      else if (existing && !flags.replace) outcome = 'skipped';
      else await target.runs.save(record);
      runs.add(runId, outcome);
    }
    runs.report('graph run(s)');
  } finally {
    await dbContainer.resolve<PgDatabase>(Tokens.Database).close();
  }
}

/**
 * The knowledge graphs of every project, copied through the knowledge store port (nodes, deletion records, owner),
 * then its backups. A project whose backups cannot be read (a damaged file) is not copied at all: one line names the
 * file, the other projects go on, and the command exits 1 at the end.
 */
async function copyKnowledge(
  [from, to]: import('tsyringe').DependencyContainer[],
  verb: string,
  replace: boolean | undefined,
): Promise<void> {
  const { KnowledgeTokens, copyKnowledgeProject, copyKnowledgeBackups } = await import('../../modules/knowledge');
  type Store = import('../../modules/knowledge').KnowledgeStore;
  const [source, target] = [from!, to!].map((c) => c.resolve<Store>(KnowledgeTokens.KnowledgeStore)) as [Store, Store];
  const counts = { imported: 0, unchanged: 0, skipped: 0, nodes: 0, deleted: 0 };
  const backupCounts: Record<Outcome, number> = { imported: 0, unchanged: 0, skipped: 0 };
  const failed: string[] = [];
  for (const { project } of await source.listProjects()) {
    let backups: Awaited<ReturnType<Store['exportBackups']>>;
    try {
      backups = await source.exportBackups(project);
    } catch (e) {
      failed.push(project);
      console.error(`knowledge ${project}: not copied (nor its backups): ${(e as Error).message}`);
      continue;
    }
    const r = await copyKnowledgeProject(source, target, project, { replace });
    counts[r.outcome]++;
    if (r.outcome === 'imported') Object.assign(counts, { nodes: counts.nodes + r.nodes, deleted: counts.deleted + r.deleted });
    const what = `${r.nodes} node(s), ${r.deleted} deleted record(s)`;
    console.log(`knowledge ${project}: ${r.outcome === 'imported' ? `copied ${what}` : r.outcome === 'unchanged' ? 'unchanged' : `differs, kept (use --replace) — source has ${what}`}`);
    for (const file of backups.ignored) console.log(`knowledge ${project}: ${file} is not a backup (not named knowledge_graph_YYYYMMDD-HHMMSS.ndjson), left out`);
    let copied: Awaited<ReturnType<typeof copyKnowledgeBackups>>;
    try {
      copied = await copyKnowledgeBackups(source, target, project, backups.backups, { replace });
    } catch (e) {
      // A damaged backup file on the target side (export into a data dir): none of this project's backups is written.
      failed.push(project);
      console.error(`knowledge ${project}: backups not copied: ${(e as Error).message}`);
      continue;
    }
    for (const b of copied) {
      backupCounts[b.outcome]++;
      console.log(`knowledge backup ${project}/${b.name}: ${b.outcome === 'imported' ? `copied, ${b.nodes} node(s) to bring back` : SAID[b.outcome]}`);
    }
  }
  console.log(
    `${counts.imported} knowledge project(s) ${verb} (${counts.nodes} node(s), ${counts.deleted} deleted record(s)), ${counts.unchanged} unchanged, ${counts.skipped} kept as they were`,
  );
  console.log(`${backupCounts.imported} knowledge backup(s) ${verb}, ${backupCounts.unchanged} unchanged, ${backupCounts.skipped} kept as they were`);
  if (failed.length) {
    console.error(`knowledge project(s) not (fully) copied because a backup could not be read: ${failed.join(', ')}`);
    process.exitCode = 1;
  }
}
