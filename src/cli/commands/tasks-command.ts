import { Command } from 'commander';
import { TasksTokens, type ProjectGraphView, type TaskDetails } from '../../modules/tasks';
import { withStoreOptions } from './common-options';
import { withStores } from './command-container';
import { storePlace } from './store-place';
import { resolveConfig, type CommonFlags } from '../resolve-config';

/**
 * `workgraph tasks PROJECT [--task ID] [--mermaid | --json]`: prints a project's task graph as a status table, as the
 * Mermaid flowchart `get_project_graph` returns, or as that tool's whole answer in JSON; with `--task`, one task as
 * `get_task_details` answers it (its status changes with who made each, its history). From the data dir, or from
 * PostgreSQL with `--database-url`. Exit 1 (message on stderr) when the project or the task is not there.
 */
export function tasksCommand(): Command {
  return withStoreOptions(
    new Command('tasks')
      .description("print a project's task graph: a status table, a Mermaid flowchart with --mermaid, JSON with --json; one task's transitions and history with --task")
      .argument('<project>', 'project name or id')
      .option('--task <id>', "one task: its fields, its status changes (when, from, to, attempt, who) and its history")
      .option('--mermaid', 'print the Mermaid flowchart instead of the table')
      .option('--json', "print the graph as JSON (get_project_graph's answer; get_task_details' with --task)"),
  ).action(async (project: string, flags: CommonFlags & { mermaid?: boolean; json?: boolean; task?: string }) => {
    if ((flags.mermaid && flags.json) || (flags.mermaid && flags.task !== undefined)) {
      const { UsageError } = await import('../usage-error');
      throw new UsageError(flags.json ? '--mermaid and --json: give one of them' : '--mermaid and --task: the flowchart is of the whole graph; give one of them');
    }
    const config = resolveConfig(flags);
    try {
      if (flags.task !== undefined) {
        const nodeId = flags.task;
        const details = await withStores(config, (stores) => stores.useCase<{ project: string; nodeId: string }, TaskDetails>(TasksTokens.GetTaskDetails).execute({ project, nodeId }));
        console.log(flags.json ? JSON.stringify(details, null, 2) : formatTaskDetails(details));
        return;
      }
      const view = await withStores(config, (stores) => stores.useCase<{ project: string }, ProjectGraphView>(TasksTokens.GetProjectGraph).execute({ project }));
      console.log(flags.json ? JSON.stringify(view, null, 2) : flags.mermaid ? view.mermaid : formatTaskTable(view));
    } catch (e) {
      if ((e as { code?: string }).code !== 'not_found') throw e;
      throw new Error(`${(e as Error).message} (${await storePlace(config)}; \`workgraph projects\` lists what is there)`);
    }
  });
}

/** Who made a change, as one word or two: `alice (claude-code)`; `-` for log lines written before actors were kept. */
export function actorText(actor: { name: string; client?: string } | undefined): string {
  if (!actor) return '-';
  return actor.client ? `${actor.name} (${actor.client})` : actor.name;
}

/**
 * One task: a header (id, status, title, priority, attempts, dependencies, claim), its status changes (time, from →
 * to, attempt, who) and the plan changes that concern it (revision, time, action, who, reason).
 */
export function formatTaskDetails(d: TaskDetails): string {
  const n = d.node;
  const table = (rows: string[][]) => {
    const widths = rows.length ? rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length))) : [];
    return rows.map((r) => '  ' + r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd());
  };
  const transitions = d.transitions.map((t) => [t.time, `${t.from} -> ${t.to}`, `attempt ${t.attempt}`, actorText(t.actor)]);
  const history = d.history.map((h) => {
    const who = `${h.actor.identity ?? 'anonymous'}${h.actor.agent ? `/${h.actor.agent}` : ''}@${h.actor.host}${h.actor.client ? ` (${h.actor.client})` : ''}`;
    return [`r${h.revision}`, h.time, h.action, who, h.reason];
  });
  return [
    `Task ${n.id} (${d.project}) — ${n.status}: ${n.title}`,
    `  priority ${n.priority ?? 'medium'}, attempts ${n.current_attempt}/${n.max_attempts}, depends on ${n.depends_on.join(',') || '-'}, ` +
      `dependents ${d.dependents.join(',') || '-'}, claimed by ${claimCell(n.claim)}`,
    `Transitions (${d.transitions.length}):`,
    ...table(transitions),
    `History (${d.history.length}):`,
    ...table(history),
    `revision ${d.revision}`,
  ].join('\n');
}

/**
 * The status table: one row per task (id, status, priority, attempts, dependencies, who claims it and until when,
 * title), then the counts per status and the graph's revision.
 */
export function formatTaskTable(view: ProjectGraphView): string {
  const rows = view.nodes.map((n) => [
    n.id,
    n.status,
    n.priority ?? 'medium',
    `${n.current_attempt}/${n.max_attempts}`,
    n.depends_on.join(',') || '-',
    claimCell(n.claim),
    n.title,
  ]);
  const header = ['ID', 'STATUS', 'PRIORITY', 'ATTEMPTS', 'DEPENDS ON', 'CLAIMED BY', 'TITLE'];
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
    `${view.nodes.length} task(s): ${counts}; revision ${view.revision}`,
  ].join('\n');
}

/** `alice/builder-1@host until 10:30:00Z`, or `-` when unclaimed. */
function claimCell(claim: ProjectGraphView['nodes'][number]['claim']): string {
  if (!claim) return '-';
  const who = `${claim.identity ?? 'anonymous'}${claim.agent ? `/${claim.agent}` : ''}@${claim.host}`;
  return `${who} until ${(claim.expires_at ?? '').replace(/^.*T/, '').replace(/\.\d+Z$/, 'Z')}`;
}
