import * as fs from 'node:fs';
import * as path from 'node:path';
import { Command } from 'commander';
import { TasksTokens, type TaskGraph } from '../../modules/tasks';
import { KnowledgeTokens, type KnowledgeStore } from '../../modules/knowledge';
import { resolveConfig } from '../resolve-config';

/** What one project folder of a data dir holds. */
export interface ProjectSummary {
  id: string;
  /** The task graph's project name, when the project has one. */
  name?: string;
  root?: string;
  /** Task count and counts per status; absent when the project has no task graph. */
  tasks?: { total: number; byStatus: Record<string, number> };
  /** Knowledge node count (live and soft-deleted); absent when the project has no knowledge graph. */
  knowledge?: { nodes: number; deleted: number; malformedLines: number };
  /** Why part of the project could not be read, when something could not. */
  problems?: string[];
}

/**
 * `workgraph projects [--data-dir DIR] [--json]`: every project of a data dir (`<data-dir>/projects/<id>/`) with what
 * it holds — its task graph (tasks per status) and its knowledge graph (nodes, soft-deleted nodes). Read through the
 * same stores the server uses. Exit 0; an empty or missing data dir says which folder it looked in.
 */
export function projectsCommand(): Command {
  return new Command('projects')
    .description("list a data dir's projects with what each holds (tasks per status, knowledge nodes)")
    .option('--json', 'print JSON instead of a table')
    .option('--config <file>', 'JSON or YAML settings file (env WORKGRAPH_CONFIG)')
    .option('--data-dir <dir>', 'data folder (env WORKGRAPH_DATA_DIR; default $XDG_DATA_HOME/workgraph or ~/.local/share/workgraph)')
    .action(async (flags: { json?: boolean; dataDir?: string; config?: string }) => {
      const config = resolveConfig({ dataDir: flags.dataDir, config: flags.config });
      const projectsDir = path.join(config.dataDir, 'projects');
      const ids = projectIds(projectsDir);
      const summaries = ids.length ? await summarize(config, ids) : [];
      if (flags.json) {
        console.log(JSON.stringify({ dataDir: config.dataDir, projects: summaries }, null, 2));
        return;
      }
      if (summaries.length === 0) {
        console.log(`No projects in ${projectsDir} (data dir ${config.dataDir}; set it with --data-dir or WORKGRAPH_DATA_DIR)`);
        return;
      }
      console.log(`Projects in ${projectsDir}:`);
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

async function summarize(config: ReturnType<typeof resolveConfig>, ids: string[]): Promise<ProjectSummary[]> {
  const { createContainer } = await import('../../server/container');
  const { silentLogger } = await import('../../kernel/logger');
  const c = createContainer(config, silentLogger);
  const tasks = c.resolve<{ load(id: string): Promise<TaskGraph | undefined> }>(TasksTokens.TaskGraphStore);
  const knowledge = c.resolve<KnowledgeStore>(KnowledgeTokens.KnowledgeStore);
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
      if (stats) summary.knowledge = { nodes: stats.nodes, deleted: stats.deleted, malformedLines: stats.malformedCount };
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
    parts.push(`${p.knowledge.nodes} knowledge node(s)${p.knowledge.deleted ? `, ${p.knowledge.deleted} deleted` : ''}${p.knowledge.malformedLines ? `, ${p.knowledge.malformedLines} malformed line(s)` : ''}`);
  } else parts.push('no knowledge graph');
  const name = p.name && p.name !== p.id ? ` "${p.name}"` : '';
  const root = p.root ? ` — ${p.root}` : '';
  const problems = p.problems ? `\n    problems: ${p.problems.join('; ')}` : '';
  return `  ${p.id}${name}: ${parts.join('; ')}${root}${problems}`;
}
