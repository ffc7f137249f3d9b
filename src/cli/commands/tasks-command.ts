import * as path from 'node:path';
import { Command } from 'commander';
import { TasksTokens, type ProjectGraphView } from '../../modules/tasks';
import type { UseCase } from '../../kernel/use-case';
import { resolveConfig } from '../resolve-config';

/**
 * `workgraph tasks PROJECT [--mermaid] [--data-dir DIR]`: prints a project's task graph as a status table, or as the
 * Mermaid flowchart `get_project_graph` returns. Exit 1 (message on stderr) when the project has no graph.
 */
export function tasksCommand(): Command {
  return new Command('tasks')
    .description("print a project's task graph: a status table, or a Mermaid flowchart with --mermaid")
    .argument('<project>', 'project name or id')
    .option('--mermaid', 'print the Mermaid flowchart instead of the table')
    .option('--config <file>', 'JSON or YAML settings file (env WORKGRAPH_CONFIG)')
    .option('--data-dir <dir>', 'data folder (env WORKGRAPH_DATA_DIR; default $XDG_DATA_HOME/workgraph or ~/.local/share/workgraph)')
    .action(async (project: string, flags: { mermaid?: boolean; dataDir?: string; config?: string }) => {
      // Built through the same container and module registrations as `serve` (one composition path).
      const { createContainer } = await import('../../server/container');
      const { silentLogger } = await import('../../kernel/logger');
      const { noopCallContext } = await import('../../kernel/call-context');
      const config = resolveConfig({ dataDir: flags.dataDir, config: flags.config });
      const useCase = createContainer(config, silentLogger).resolve<UseCase<{ project: string }, ProjectGraphView>>(TasksTokens.GetProjectGraph);
      try {
        const view = await useCase.execute({ project }, noopCallContext());
        console.log(flags.mermaid ? view.mermaid : formatTaskTable(view));
      } catch (e) {
        // Name the folder searched: the usual cause is a server that ran with another --data-dir.
        const notFound = (e as { code?: string }).code === 'not_found';
        const where = notFound ? ` (searched ${path.join(config.dataDir, 'projects')}; data dir from --data-dir, WORKGRAPH_DATA_DIR or the default; \`workgraph projects\` lists what is there)` : '';
        console.error(`workgraph tasks: ${(e as Error).message}${where}`);
        process.exitCode = 1;
      }
    });
}

/** The status table: one row per task (id, status, attempts, dependencies, title), then the counts per status. */
export function formatTaskTable(view: ProjectGraphView): string {
  const rows = view.nodes.map((n) => [
    n.id,
    n.status,
    `${n.current_attempt}/${n.max_attempts}`,
    n.depends_on.join(',') || '-',
    n.title,
  ]);
  const header = ['ID', 'STATUS', 'ATTEMPTS', 'DEPENDS ON', 'TITLE'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const counts = Object.entries(view.counts)
    .filter(([, n]) => n > 0)
    .map(([s, n]) => `${s} ${n}`)
    .join(', ');
  return [
    `Project ${view.project_name} (${view.project_id}) — ${view.project_root}`,
    line(header),
    ...rows.map(line),
    `${view.nodes.length} task(s): ${counts}`,
  ].join('\n');
}
