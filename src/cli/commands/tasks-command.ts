import { Command } from 'commander';
import type { ProjectGraphView } from '../../modules/tasks/application/services/task-graph-views';
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
    .option('--data-dir <dir>', 'data folder (env WORKGRAPH_DATA_DIR; default $XDG_DATA_HOME/workgraph or ~/.local/share/workgraph)')
    .action(async (project: string, flags: { mermaid?: boolean; dataDir?: string }) => {
      await import('reflect-metadata'); // decorated (tsyringe) classes below; serve loads it with its container
      const { ProjectLayout } = await import('../../kernel/files/project-layout');
      const { FileTaskGraphStore } = await import('../../modules/tasks/infrastructure/file-task-graph-store');
      const { GetProjectGraph } = await import('../../modules/tasks/application/use-cases/get-project-graph');
      const config = resolveConfig({ dataDir: flags.dataDir });
      const useCase = new GetProjectGraph(new FileTaskGraphStore(new ProjectLayout(config.dataDir)));
      try {
        const view = await useCase.execute({ project });
        console.log(flags.mermaid ? view.mermaid : formatTaskTable(view));
      } catch (e) {
        console.error(`workgraph tasks: ${(e as Error).message}`);
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
