import { Command, Option } from 'commander';
import { WorkflowTokens, type ListSessionsOutput, type PruneSessionsOutput, type SessionTimeline } from '../../modules/workflow';
import type { UseCase } from '../../kernel/use-case';
import { resolveConfig } from '../resolve-config';

type DataFlags = { dataDir?: string; config?: string };

/** Resolves a workflow use case through the same container and module registrations as `serve`. */
async function useCase<I, O>(flags: DataFlags, token: symbol): Promise<UseCase<I, O>> {
  const { createContainer } = await import('../../server/container');
  const { silentLogger } = await import('../../kernel/logger');
  const config = resolveConfig({ dataDir: flags.dataDir, config: flags.config });
  return createContainer(config, silentLogger).resolve<UseCase<I, O>>(token);
}

const dataOptions = (cmd: Command) =>
  cmd
    .option('--config <file>', 'JSON or YAML settings file (env WORKGRAPH_CONFIG)')
    .option('--data-dir <dir>', 'data folder (env WORKGRAPH_DATA_DIR; default $XDG_DATA_HOME/workgraph or ~/.local/share/workgraph)');

const STATUSES = ['active', 'needs_attention', 'complete'];

/**
 * `workgraph sessions [--json] [--status S...] [--workflow ID]`: the durable workflow sessions, most recently updated
 * first. `workgraph sessions prune [--older-than DAYS] [--include-unfinished] [--dry-run]`: retention by hand.
 */
export function sessionsCommand(): Command {
  const list = dataOptions(
    new Command('sessions')
      .description('list durable workflow sessions (most recently updated first); `sessions prune` removes old ones')
      .addOption(new Option('--status <status...>', 'only these statuses').choices(STATUSES))
      .option('--workflow <id>', 'only sessions of this workflow')
      .option('--json', 'print the list as JSON'),
  ).action(async (flags: DataFlags & { status?: string[]; workflow?: string; json?: boolean }) => {
    const uc = await useCase<object, ListSessionsOutput>(flags, WorkflowTokens.ListSessions);
    const page = await uc.execute({ status: flags.status, workflowId: flags.workflow, limit: 500 });
    console.log(flags.json ? JSON.stringify(page.sessions, null, 2) : formatSessionTable(page));
  });
  list.addCommand(
    dataOptions(
      new Command('prune')
        .description('remove completed sessions older than the retention (default 30 days), and with --include-unfinished unfinished ones not updated for --older-than days')
        .option('--older-than <days>', 'age in days (default: the retention, --session-retention-days)')
        .option('--include-unfinished', 'also remove unfinished sessions not updated for that long')
        .option('--dry-run', 'only list what would be removed'),
    ).action(async (flags: DataFlags & { olderThan?: string; includeUnfinished?: boolean; dryRun?: boolean }) => {
      const days = flags.olderThan === undefined ? undefined : Number(flags.olderThan);
      if (days !== undefined && (!Number.isFinite(days) || days < 0)) {
        console.error(`workgraph sessions prune: --older-than: expected a number of days, got ${JSON.stringify(flags.olderThan)}`);
        process.exitCode = 2;
        return;
      }
      const uc = await useCase<object, PruneSessionsOutput>(flags, WorkflowTokens.PruneSessions);
      const out = await uc.execute({ olderThanDays: days, includeUnfinished: !!flags.includeUnfinished, dryRun: !!flags.dryRun });
      for (const r of out.removed) console.log(`${flags.dryRun ? 'would remove' : 'removed'} ${r.sessionId} (${r.status}, updated ${r.updatedAt})`);
      console.log(`${out.removed.length} session(s) ${flags.dryRun ? 'would be ' : ''}removed, ${out.kept} kept`);
    }),
  );
  return list;
}

/** `workgraph session ID [--json]`: one session's timeline — steps with their notes, blocked attempts, forks. */
export function sessionCommand(): Command {
  return dataOptions(
    new Command('session').description("print a session's timeline: steps and notes, blocked attempts, checkpoints, forks").argument('<id>', 'session id').option('--json', 'print the timeline as JSON'),
  ).action(async (id: string, flags: DataFlags & { json?: boolean }) => {
    const uc = await useCase<object, SessionTimeline>(flags, WorkflowTokens.GetSessionTimeline);
    try {
      const t = await uc.execute({ sessionId: id });
      console.log(flags.json ? JSON.stringify(t, null, 2) : formatTimeline(t));
    } catch (e) {
      console.error(`workgraph session: ${(e as Error).message}`);
      process.exitCode = 1;
    }
  });
}

export function formatSessionTable(page: ListSessionsOutput): string {
  if (!page.sessions.length) return 'No sessions.';
  const rows = page.sessions.map((s) => [s.sessionId, s.status, s.workflowId, s.step ? s.step.completionId : '-', s.updatedAt.replace(/\.\d+Z$/, 'Z'), s.goal ?? '']);
  const header = ['ID', 'STATUS', 'WORKFLOW', 'STEP', 'UPDATED', 'GOAL'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd();
  return [line(header), ...rows.map(line), `${page.total} session(s)`].join('\n');
}

export function formatTimeline(t: SessionTimeline): string {
  const out = [
    `Session ${t.sessionId} — ${t.status}`,
    `Workflow ${t.workflow.id} ${t.workflow.version}${t.workflow.newerVersionAvailable ? ' (a newer version exists; this session keeps its own)' : ''}`,
    ...(t.goal ? [`Goal: ${t.goal}`] : []),
    ...(t.workspacePath ? [`Workspace: ${t.workspacePath}${t.gitBranch ? ` (${t.gitBranch})` : ''}`] : []),
    `Current step: ${t.step ? `${t.step.title} (${t.step.completionId})` : 'none — complete'}`,
    '',
  ];
  const indent = (text: string) => text.trim().split('\n').map((l) => `      ${l}`).join('\n');
  for (const e of t.events) {
    const time = String(e.at).replace(/\.\d+Z$/, 'Z');
    const head = `${String(e.seq).padStart(3)}. ${time}`;
    switch (e.kind) {
      case 'session_started':
        out.push(`${head}  started${e.goal ? `: ${e.goal}` : ''}`);
        break;
      case 'step_completed':
        out.push(`${head}  done  ${e.title} (${e.completionId})${e.from !== undefined ? `  [${e.from} → ${e.node}]` : ''}`);
        if (typeof e.notesMarkdown === 'string' && e.notesMarkdown.trim()) out.push(indent(e.notesMarkdown));
        break;
      case 'output_blocked':
        out.push(`${head}  BLOCKED ${e.title} (${e.completionId}), attempt ${e.attempt}${e.exhausted ? ' — attempts exhausted, needs a person' : ''}`);
        for (const b of (e.blockers as Array<{ message: string }>) ?? []) out.push(`      - ${b.message}`);
        break;
      case 'checkpoint_created':
        out.push(`${head}  checkpoint at point ${e.node}${e.note ? `: ${e.note}` : ''}`);
        break;
      case 'forked':
        out.push(`${head}  FORK from point ${e.from} (${e.via}); the branch that ended at point ${e.previousHead} is kept above`);
        break;
      case 'session_resumed':
        out.push(`${head}  resumed`);
        break;
      case 'session_completed':
        out.push(`${head}  complete`);
        if (typeof e.summary === 'string') out.push(indent(e.summary));
        break;
      default:
        out.push(`${head}  ${String(e.kind)}`);
    }
  }
  for (const d of t.damaged) out.push(`  (log line ${d.line} skipped: ${d.reason})`);
  return out.join('\n');
}
