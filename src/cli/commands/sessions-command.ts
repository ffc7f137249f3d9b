import { Command, Option } from 'commander';
import { WorkflowTokens, type ListSessionsOutput, type PruneSessionsOutput, type SessionStore, type SessionTimeline } from '../../modules/workflow';
import { withStoreOptions } from './common-options';
import { withStores } from './command-container';
import { resolveConfig, type CommonFlags } from '../resolve-config';
import { UsageError } from '../usage-error';

const STATUSES = ['active', 'needs_attention', 'complete'];

/**
 * `workgraph sessions [--json] [--status S...] [--workflow ID]`: the durable workflow sessions, most recently updated
 * first. `workgraph sessions prune [--older-than DAYS] [--include-unfinished] [--dry-run]`: retention by hand. Both
 * over the data dir's files or, with `--database-url`, the PostgreSQL database.
 */
export function sessionsCommand(): Command {
  const list = withStoreOptions(
    new Command('sessions')
      .description('list durable workflow sessions (most recently updated first); `sessions prune` removes old ones')
      .addOption(new Option('--status <status...>', 'only these statuses').choices(STATUSES))
      .option('--workflow <id>', 'only sessions of this workflow')
      .option('--json', 'print the list as JSON'),
  ).action(async (flags: CommonFlags & { status?: string[]; workflow?: string; json?: boolean }) => {
    const page = await withStores(resolveConfig(flags), async (stores) => {
      const uc = stores.useCase<{ status?: string[]; workflowId?: string; limit: number; cursor?: string }, ListSessionsOutput>(WorkflowTokens.ListSessions);
      // Every page: a data dir may hold more sessions than one answer of workflow_sessions does.
      const first = await uc.execute({ status: flags.status, workflowId: flags.workflow, limit: 500 });
      const sessions = [...first.sessions];
      for (let cursor = first.nextCursor; cursor !== undefined; ) {
        const next = await uc.execute({ status: flags.status, workflowId: flags.workflow, limit: 500, cursor });
        sessions.push(...next.sessions);
        cursor = next.nextCursor;
      }
      return { sessions, total: first.total };
    });
    console.log(flags.json ? JSON.stringify(page.sessions, null, 2) : formatSessionTable(page));
  });
  list.addCommand(
    withStoreOptions(
      new Command('prune')
        .description('remove completed sessions older than the retention (default 30 days), and with --include-unfinished unfinished ones not updated for --older-than days')
        .option('--older-than <days>', 'age in days (default: the retention, --session-retention-days)')
        .option('--include-unfinished', 'also remove unfinished sessions not updated for that long')
        .option('--dry-run', 'only list what would be removed'),
      'session-retention-days',
    ).action(async (flags: CommonFlags & { olderThan?: string; includeUnfinished?: boolean; dryRun?: boolean }) => {
      const days = flags.olderThan === undefined ? undefined : Number(flags.olderThan);
      if (days !== undefined && (flags.olderThan!.trim() === '' || !Number.isFinite(days) || days < 0)) {
        throw new UsageError(`--older-than: expected a number of days (0 or more), got ${JSON.stringify(flags.olderThan)}`);
      }
      const config = resolveConfig(flags);
      const out = await withStores(config, (stores) =>
        stores.useCase<object, PruneSessionsOutput>(WorkflowTokens.PruneSessions).execute({ olderThanDays: days, includeUnfinished: !!flags.includeUnfinished, dryRun: !!flags.dryRun }),
      );
      for (const r of out.removed) console.log(`${flags.dryRun ? 'would remove' : 'removed'} ${r.sessionId} (${r.status}, updated ${r.updatedAt})`);
      console.log(`${out.removed.length} session(s) ${flags.dryRun ? 'would be ' : ''}removed, ${out.kept} kept`);
    }),
  );
  return list;
}

/**
 * `workgraph session ID [--json]`: one session's timeline — steps with their notes, blocked attempts, forks. ID may be
 * a unique prefix of a session id, as `workgraph sessions` lists them; an ambiguous one lists the candidates.
 */
export function sessionCommand(): Command {
  return withStoreOptions(
    new Command('session')
      .description("print a session's timeline: steps and notes, blocked attempts, checkpoints, forks")
      .argument('<id>', 'session id, or a unique prefix of one')
      .option('--json', 'print the timeline as JSON'),
    'workflows',
  ).action(async (id: string, flags: CommonFlags & { json?: boolean }) => {
    const t = await withStores(resolveConfig(flags), async (stores) => {
      const sessionId = await expandSessionId(id, stores.get<SessionStore>(WorkflowTokens.SessionStore));
      // The tool answers page by page; the command prints the whole timeline.
      const timeline = stores.useCase<object, SessionTimeline>(WorkflowTokens.GetSessionTimeline);
      const first = await timeline.execute({ sessionId, limit: 1000 });
      const events = [...first.events];
      for (let cursor = first.nextCursor; cursor !== undefined; ) {
        const next = await timeline.execute({ sessionId, limit: 1000, cursor });
        events.push(...next.events);
        cursor = next.nextCursor;
      }
      const { nextCursor: _ignored, ...whole } = first;
      return { ...whole, events };
    });
    console.log(flags.json ? JSON.stringify(t, null, 2) : formatTimeline(t));
  });
}

/** The one session id that is `id` or starts with it; `id` itself when none does (the use case then says not found). */
export async function expandSessionId(id: string, store: Pick<SessionStore, 'list'>): Promise<string> {
  const ids = (await store.list()).map((s) => s.sessionId);
  if (ids.includes(id) || id === '') return id;
  const matches = ids.filter((s) => s.startsWith(id)).sort();
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1) {
    const shown = matches.slice(0, 10).join(', ');
    throw new Error(`session id prefix '${id}' is ambiguous: ${matches.length} sessions start with it (${shown}${matches.length > 10 ? ', …' : ''}); give more characters`);
  }
  return id;
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
    const first = out.length;
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
      case 'verification_run':
        out.push(`${head}  ${verificationLine(e)}`);
        if (typeof e.stderrTail === 'string' && e.stderrTail.trim() && !e.verified) out.push(indent(e.stderrTail.trim().split('\n').slice(-5).join('\n')));
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
    // Who did it: the identity, and the agent's MCP client beside it (events written before identities have none).
    const actor = e.actor as { name?: unknown; client?: unknown } | undefined;
    if (actor && typeof actor.name === 'string') out[first] += `  — ${actor.name}${typeof actor.client === 'string' ? ` (${actor.client})` : ''}`;
  }
  for (const d of t.damaged) out.push(`  (log line ${d.line} skipped: ${d.reason})`);
  return out.join('\n');
}

/** One timeline line of a verification attempt: who ran it, how it ended, verified or not. */
function verificationLine(e: Record<string, unknown>): string {
  const what = `\`${String(e.command)}\` for ${String(e.parentStepId ?? e.completionId)}, attempt ${String(e.attempt)}`;
  if (e.ranBy === 'agent') return `UNVERIFIED ${what}: handed to the agent (${String(e.reason ?? 'the server may not run it')})`;
  if (e.interrupted === true) return `INTERRUPTED ${what}: the server running it stopped (not counted; it runs again)`;
  if (e.cancelled) return `CANCELLED ${what} (not counted)`;
  const end = e.timedOut ? `timed out after ${String(e.durationMs)} ms` : e.exitCode === null ? `ended by ${String(e.signal)}` : `exit ${String(e.exitCode)} in ${String(e.durationMs)} ms`;
  return `${e.verified ? 'verified' : 'VERIFICATION FAILED'} ${what}: ${end}`;
}
