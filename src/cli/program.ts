import type { Command } from 'commander';
import { packageVersion } from '../kernel/config/package-root';
import { parseServeArgs } from './commands/serve-args';
import { UsageError } from './usage-error';

/**
 * Each command, loaded only when it is the one being run (or for the program's own --help): `serve` is the server's
 * cold start, and requiring every other command's modules first cost it about a third more (bench/cold-start.js).
 */
const COMMANDS: ReadonlyArray<{ name: string; load: () => Command }> = [
  { name: 'serve', load: () => (require('./commands/serve-command') as typeof import('./commands/serve-command')).serveCommand() },
  { name: 'validate', load: () => (require('./commands/validate-command') as typeof import('./commands/validate-command')).validateCommand() },
  { name: 'list', load: () => (require('./commands/list-command') as typeof import('./commands/list-command')).listCommand() },
  { name: 'tasks', load: () => (require('./commands/tasks-command') as typeof import('./commands/tasks-command')).tasksCommand() },
  { name: 'run', load: () => (require('./commands/run-command') as typeof import('./commands/run-command')).runCommand() },
  { name: 'sessions', load: () => (require('./commands/sessions-command') as typeof import('./commands/sessions-command')).sessionsCommand() },
  { name: 'session', load: () => (require('./commands/sessions-command') as typeof import('./commands/sessions-command')).sessionCommand() },
  { name: 'dashboard', load: () => (require('./commands/dashboard-command') as typeof import('./commands/dashboard-command')).dashboardCommand() },
  { name: 'projects', load: () => (require('./commands/projects-command') as typeof import('./commands/projects-command')).projectsCommand() },
  { name: 'db', load: () => (require('./commands/db-command') as typeof import('./commands/db-command')).dbCommand() },
  { name: 'knowledge', load: () => (require('./commands/knowledge-command') as typeof import('./commands/knowledge-command')).knowledgeCommand() },
];

/** Exit codes of the CLI. */
export const ExitCodes = { Ok: 0, Problems: 1, Usage: 2 } as const;

/**
 * The `workgraph` program: `serve` (the default), `validate`, `list`, and the module commands. With `only`, just that
 * command is built (the others' modules stay unloaded); without, all of them (the program's --help lists them).
 * `onAction` learns the command whose action is about to run.
 */
export function buildProgram(only?: string, onAction?: (action: Command) => void): Command {
  const { Command } = require('commander') as typeof import('commander');
  const program = new Command('workgraph')
    .description('An MCP server that keeps AI coding agents on rails: guided workflows, tool graphs, task DAGs, a knowledge graph.')
    .version(packageVersion(), '-V, --version')
    .exitOverride();
  for (const c of COMMANDS) if (only === undefined || c.name === only) program.addCommand(c.load(), { isDefault: c.name === 'serve' });
  const { shareOptions } = require('./commands/common-options') as typeof import('./commands/common-options');
  shareOptions(program, onAction);
  return program;
}

/** The names of the program's commands, in the order --help lists them (without loading any of them). */
export const COMMAND_NAMES: readonly string[] = COMMANDS.map((c) => c.name);

/**
 * Runs the CLI. Returns the exit code for commands that finish (serve keeps running and returns undefined).
 * Usage errors exit 2, `--help`/`--version` exit 0.
 */
export async function runCli(argv: string[]): Promise<number | undefined> {
  const first = argv[2];
  if (first !== undefined && !first.startsWith('-') && !COMMANDS.some((c) => c.name === first) && first !== 'help') {
    process.stderr.write(`workgraph: unknown command '${first}' (commands: ${COMMANDS.map((c) => c.name).join(', ')}; see --help)\n`);
    return ExitCodes.Usage;
  }
  // Options first (`workgraph --data-dir D`) or nothing: the default command, serve; the program's own --help/--version
  // or `help`: every command, so the help lists them all.
  const programLevel = first === undefined || first === 'help' || ['-h', '--help', '-V', '--version'].includes(first);
  // The command whose action runs, for the prefix of an error it throws (`workgraph sessions prune: …`).
  let running = first === undefined || first === 'serve' || first.startsWith('--') ? 'workgraph serve: ' : 'workgraph: ';
  try {
    // `serve` (the default) with a plain command line skips commander: part of the server's cold start
    // (docs/architecture.md "Cold start"). Anything else, help and usage errors included, goes through commander.
    const serveFlags = first === undefined || first === 'serve' || first.startsWith('--') ? parseServeArgs(argv.slice(first === 'serve' ? 3 : 2)) : undefined;
    if (serveFlags) {
      await (require('./commands/serve') as typeof import('./commands/serve')).runServe(serveFlags);
      return undefined;
    }
    const { errorPrefix } = require('./commands/common-options') as typeof import('./commands/common-options');
    const program = buildProgram(programLevel ? undefined : first.startsWith('-') ? 'serve' : first, (action) => {
      running = errorPrefix(action);
    });
    await program.parseAsync(argv);
    return undefined;
  } catch (e) {
    const { CommanderError } = require('commander') as typeof import('commander');
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return ExitCodes.Ok;
      return e.exitCode === 0 ? ExitCodes.Ok : ExitCodes.Usage;
    }
    process.stderr.write(`${running}${(e as Error).message}\n`);
    return e instanceof UsageError ? ExitCodes.Usage : ExitCodes.Problems;
  }
}
