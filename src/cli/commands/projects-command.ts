import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command } from 'commander';
import { TasksTokens, type TaskGraph } from '../../modules/tasks';
import { KnowledgeTokens, type KnowledgeStore } from '../../modules/knowledge';
import { withStoreOptions } from './common-options';
import { resolveConfig, type CommonFlags } from '../resolve-config';

/** What one project holds (a folder of a data dir, or a project in the database). */
export interface ProjectSummary {
  id: string;
  /** The task graph's project name, when the project has one. */
  name?: string;
  root?: string;
  /** Task count and counts per status; absent when the project has no task graph. */
  tasks?: { total: number; byStatus: Record<string, number> };
  /** Knowledge node count (live and soft-deleted); absent when the project has no knowledge graph. */
  knowledge?: { nodes: number; deleted: number; malformedLines: number; backups: number };
  /** Why part of the project could not be read, when something could not. */
  problems?: string[];
}

/**
 * `workgraph projects [--data-dir DIR | --database-url URL] [--json]`: every project with what it holds — its task
 * graph (tasks per status) and its knowledge graph (nodes, soft-deleted nodes, backups). Read through the same stores
 * the server uses: the data dir's project folders, or, with a database URL (flag or WORKGRAPH_DATABASE_URL), the
 * projects that live in PostgreSQL (those with a task graph or a knowledge graph there). Exit 0; an empty store says
 * where it looked.
 */
export function projectsCommand(): Command {
  return withStoreOptions(
    new Command('projects')
      .description("list the projects with what each holds (tasks per status, knowledge nodes): a data dir's, or a database's with --database-url")
      .option('--json', 'print JSON instead of a table'),
  )
    .action(async (flags: CommonFlags & { json?: boolean }) => {
      const config = resolveConfig(flags);
      const { redactDatabaseUrl } = await import('../../kernel/postgres/database-url');
      const where = config.database ? { database: redactDatabaseUrl(config.database.url) } : { dataDir: config.dataDir };
      const place = config.database ? `database ${where.database}` : path.join(config.dataDir, 'projects');
      const summaries = await summarize(config, config.database ? undefined : projectIds(path.join(config.dataDir, 'projects')));
      if (flags.json) {
        console.log(JSON.stringify({ ...where, projects: summaries }, null, 2));
        return;
      }
      if (summaries.length === 0) {
        const hint = config.database ? 'set it with --database-url or WORKGRAPH_DATABASE_URL' : `data dir ${config.dataDir}; set it with --data-dir or WORKGRAPH_DATA_DIR`;
        console.log(`No projects in ${place} (${hint})`);
        return;
      }
      console.log(`Projects in ${place}:`);
      for (const p of summaries) console.log(formatProject(p));
    });
}

/** The project folder names (sorted); empty when the folder does not exist. */
function projectIds(projectsDir: string): string[] {
  try {
    return fs
      .readdirSync(projectsDir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && /^[a-z0-9][a-z0-9-]*$/.test(d.name))
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
}

/** `ids` undefined: the projects the stores list (a database's); the container's database pool is closed at the end. */
async function summarize(config: ReturnType<typeof resolveConfig>, ids: string[] | undefined): Promise<ProjectSummary[]> {
  if (ids && !ids.length) return [];
  const { createContainer } = await import('../../server/container');
  const { silentLogger } = await import('../../kernel/logger');
  const { Tokens } = await import('../../kernel/tokens');
  const c = createContainer(config, silentLogger);
  try {
    const tasks = c.resolve<{ load(id: string): Promise<TaskGraph | undefined>; listProjects(): Promise<string[]> }>(TasksTokens.TaskGraphStore);
    const knowledge = c.resolve<KnowledgeStore>(KnowledgeTokens.KnowledgeStore);
    const listed = ids ?? [...new Set([...(await tasks.listProjects()), ...(await knowledge.listProjects()).map((p) => p.project)])].sort();
    return await summarizeEach(listed, tasks, knowledge);
  } finally {
    if (config.database) await c.resolve<{ close(): Promise<void> }>(Tokens.Database).close();
  }
}

async function summarizeEach(ids: string[], tasks: { load(id: string): Promise<TaskGraph | undefined> }, knowledge: KnowledgeStore): Promise<ProjectSummary[]> {
  const out: ProjectSummary[] = [];
  for (const id of ids) {
    const summary: ProjectSummary = { id };
    const problems: string[] = [];
    try {
      const graph = await tasks.load(id);
      if (graph) {
        const byStatus: Record<string, number> = {};
        for (const n of graph.nodes) byStatus[n.status] = (byStatus[n.status] ?? 0) + 1;
        Object.assign(summary, { name: graph.project_name, root: graph.project_root, tasks: { total: graph.nodes.length, byStatus } });
      }
    } catch (e) {
      problems.push(`task graph: ${(e as Error).message}`);
    }
    try {
      const stats = await knowledge.reader(id).stats();
      if (stats) summary.knowledge = { nodes: stats.nodes, deleted: stats.deleted, malformedLines: stats.malformedCount, backups: (await knowledge.listBackups(id)).length };
    } catch (e) {
      problems.push(`knowledge graph: ${(e as Error).message}`);
    }
    if (problems.length) summary.problems = problems;
    out.push(summary);
  }
  return out;
}

function formatProject(p: ProjectSummary): string {
  const parts: string[] = [];
  if (p.tasks) {
    const counts = Object.entries(p.tasks.byStatus).map(([s, n]) => `${s} ${n}`).join(', ');
    parts.push(`${p.tasks.total} task(s)${counts ? ` (${counts})` : ''}`);
  } else parts.push('no task graph');
  if (p.knowledge) {
    const k = p.knowledge;
    parts.push(`${k.nodes} knowledge node(s)${k.deleted ? `, ${k.deleted} deleted` : ''}${k.backups ? `, ${k.backups} backup(s)` : ''}${k.malformedLines ? `, ${k.malformedLines} malformed line(s)` : ''}`);
  } else parts.push('no knowledge graph');
  const name = p.name && p.name !== p.id ? ` "${p.name}"` : '';
  const root = p.root ? ` — ${p.root}` : '';
  const problems = p.problems ? `\n    problems: ${p.problems.join('; ')}` : '';
  return `  ${p.id}${name}: ${parts.join('; ')}${root}${problems}`;
}
